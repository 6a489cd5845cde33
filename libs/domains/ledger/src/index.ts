/** The ledger: the double-entry journal of every money movement of a publisher. */
export {};

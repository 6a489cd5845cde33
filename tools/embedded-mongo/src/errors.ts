/** MongoDB server errors as the engine returns them: {ok: 0, errmsg, code, codeName}. */
export const CODES = {
  BadValue: 2,
  FailedToParse: 9,
  TypeMismatch: 14,
  IllegalOperation: 20,
  InvalidBSON: 22,
  NamespaceNotFound: 26,
  IndexNotFound: 27,
  ConflictingUpdateOperators: 40,
  CursorNotFound: 43,
  NamespaceExists: 48,
  MaxTimeMSExpired: 50,
  CommandNotFound: 59,
  DollarPrefixedFieldName: 52,
  ImmutableField: 66,
  CannotCreateIndex: 67,
  InvalidOptions: 72,
  InvalidNamespace: 73,
  IndexOptionsConflict: 85,
  IndexKeySpecsConflict: 86,
  CommandNotSupported: 115,
  BSONObjectTooLarge: 10334,
  DuplicateKey: 11000,
  Location40324: 40324,
  Location40415: 40415,
  Location40601: 40601,
  Location13113: 13113,
  Location51132: 51132,
  Location51183: 51183,
} as const;

export type CodeName = keyof typeof CODES;

export class MongoServerError extends Error {
  readonly code: number;
  readonly codeName: string;
  readonly extra: Record<string, unknown>;

  constructor(codeName: CodeName, message: string, extra: Record<string, unknown> = {}) {
    super(message);
    this.codeName = codeName;
    this.code = CODES[codeName];
    this.extra = extra;
  }

  toReply(): Record<string, unknown> {
    return { ok: 0, errmsg: this.message, code: this.code, codeName: this.codeName, ...this.extra };
  }
}

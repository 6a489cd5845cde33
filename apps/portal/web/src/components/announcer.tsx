/** One polite live region for the whole app: "Saved", "Copied", "Loading…" reach screen readers. */
import { createContext, useCallback, useContext, useRef, useState, type ReactNode } from 'react';

type Announce = (message: string) => void;

const AnnounceContext = createContext<Announce>(() => undefined);

export const useAnnounce = (): Announce => useContext(AnnounceContext);

export function AnnouncerProvider({ children }: { children: ReactNode }) {
  const [message, setMessage] = useState('');
  const timer = useRef<number | undefined>(undefined);
  const announce = useCallback<Announce>((m) => {
    window.clearTimeout(timer.current);
    // Cleared first, so the same message said twice is read twice.
    setMessage('');
    timer.current = window.setTimeout(() => setMessage(m), 50);
  }, []);
  return (
    <AnnounceContext.Provider value={announce}>
      {children}
      <div className="visually-hidden" role="status" aria-live="polite" aria-atomic="true">
        {message}
      </div>
    </AnnounceContext.Provider>
  );
}

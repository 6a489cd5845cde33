/** A secret shown once (a new key, a postback signing secret): copy it, then dismiss it for good. */
import { useEffect, useId, useRef, useState } from 'react';
import { useAnnounce } from './announcer';

export function CopyButton({ text, label = 'Copy', what }: { text: string; label?: string; what?: string }) {
  const announce = useAnnounce();
  const [copied, setCopied] = useState(false);
  useEffect(() => {
    if (!copied) return;
    const t = window.setTimeout(() => setCopied(false), 2000);
    return () => window.clearTimeout(t);
  }, [copied]);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      setCopied(true);
      announce(`${what ?? 'Text'} copied to the clipboard.`);
    } catch {
      announce('Copying is not allowed here: select the text and copy it.');
    }
  };
  return (
    <button
      type="button"
      className="button button-secondary button-small"
      onClick={() => void copy()}
      aria-label={what ? `${label} ${what.toLowerCase()}` : undefined}
    >
      {copied ? 'Copied' : label}
    </button>
  );
}

export function SecretPanel({ title, secret, onDismiss, children }: { title: string; secret: string; onDismiss: () => void; children?: React.ReactNode }) {
  const headingId = useId();
  const ref = useRef<HTMLElement>(null);
  useEffect(() => {
    ref.current?.focus();
  }, []);
  return (
    <section ref={ref} tabIndex={-1} className="secret-panel" aria-labelledby={headingId}>
      <h2 id={headingId}>{title}</h2>
      <p className="secret-warning">
        <strong>Copy it now: you won’t see it again.</strong> Store it where your code reads secrets (never in a public repository).
      </p>
      {children}
      <div className="secret-row">
        <code className="secret-value">{secret}</code>
        <CopyButton text={secret} what="Secret" />
      </div>
      <div className="secret-actions">
        <button type="button" className="button button-secondary" onClick={onDismiss}>
          I have copied it
        </button>
      </div>
    </section>
  );
}

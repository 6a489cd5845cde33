/** A page's h1 (focused after each navigation by the layouts) and its document.title. */
import { useEffect, useId, useRef, type ReactNode } from 'react';

export const APP_NAME = 'Portal';

export function useDocumentTitle(title: string): void {
  useEffect(() => {
    document.title = title ? `${title} · ${APP_NAME}` : APP_NAME;
  }, [title]);
}

interface PageProps {
  /** The h1. */
  title: string;
  /** document.title before " · Portal" (default: the h1), e.g. "Keys · Settings". */
  docTitle?: string;
  /** A small line above the h1 (e.g. "Settings"). */
  eyebrow?: string;
  description?: ReactNode;
  actions?: ReactNode;
  children?: ReactNode;
  /** Focus the h1 when this view appears without a navigation (e.g. "Check your mail" after a submit). */
  focusOnMount?: boolean;
}

export function Page({ title, docTitle, eyebrow, description, actions, children, focusOnMount }: PageProps) {
  useDocumentTitle(docTitle ?? title);
  const h1 = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    if (focusOnMount) h1.current?.focus();
  }, [focusOnMount]);
  return (
    <div className="page">
      <div className="page-header">
        <div>
          {eyebrow && <p className="eyebrow">{eyebrow}</p>}
          <h1 ref={h1} tabIndex={-1}>
            {title}
          </h1>
          {description && <p className="page-description">{description}</p>}
        </div>
        {actions && <div className="page-actions">{actions}</div>}
      </div>
      {children}
    </div>
  );
}

/** A card section with an h2. */
export function Section({ title, description, actions, children }: { title: string; description?: ReactNode; actions?: ReactNode; children?: ReactNode }) {
  const headingId = useId();
  return (
    <section className="card" aria-labelledby={headingId}>
      <div className="card-header">
        <div>
          <h2 id={headingId}>{title}</h2>
          {description && <p className="card-description">{description}</p>}
        </div>
        {actions && <div className="card-actions">{actions}</div>}
      </div>
      {children}
    </section>
  );
}

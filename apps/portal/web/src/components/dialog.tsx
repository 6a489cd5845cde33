/**
 * Modal dialogs on the native <dialog> (showModal): the rest of the page is inert (focus stays
 * inside), Esc closes, the title labels it, focus returns where it was.
 */
import { createContext, useCallback, useContext, useEffect, useId, useRef, useState, type ReactNode } from 'react';

export function Dialog({
  open,
  onClose,
  title,
  children,
  description,
  className,
}: {
  open: boolean;
  onClose: () => void;
  title: string;
  description?: ReactNode;
  children?: ReactNode;
  className?: string;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const returnTo = useRef<Element | null>(null);
  const titleId = useId();
  const descriptionId = useId();

  useEffect(() => {
    const d = ref.current;
    if (!d) return;
    if (open && !d.open) {
      returnTo.current = document.activeElement;
      d.showModal();
    } else if (!open && d.open) {
      d.close();
    }
  }, [open]);

  const restoreFocus = () => {
    const el = returnTo.current;
    returnTo.current = null;
    if (el instanceof HTMLElement && el.isConnected) el.focus();
  };

  return (
    <dialog
      ref={ref}
      className={`dialog ${className ?? ''}`}
      aria-labelledby={titleId}
      aria-describedby={description ? descriptionId : undefined}
      onCancel={(e) => {
        e.preventDefault();
        onClose();
      }}
      onClose={() => {
        restoreFocus();
        if (open) onClose();
      }}
    >
      {open && (
        <div className="dialog-body">
          <h2 id={titleId}>{title}</h2>
          {description && (
            <div id={descriptionId} className="dialog-description">
              {description}
            </div>
          )}
          {children}
        </div>
      )}
    </dialog>
  );
}

export interface ConfirmOptions {
  title: string;
  body: ReactNode;
  confirmLabel: string;
  cancelLabel?: string;
  danger?: boolean;
}

type Confirm = (o: ConfirmOptions) => Promise<boolean>;

const ConfirmContext = createContext<Confirm>(async () => false);

/** `await confirm({...})`: true when the person confirms, false on cancel or Esc. */
export const useConfirm = (): Confirm => useContext(ConfirmContext);

export function ConfirmProvider({ children }: { children: ReactNode }) {
  const [pending, setPending] = useState<(ConfirmOptions & { resolve: (ok: boolean) => void }) | null>(null);
  const confirm = useCallback<Confirm>((o) => new Promise<boolean>((resolve) => setPending({ ...o, resolve })), []);
  const settle = (ok: boolean) => {
    pending?.resolve(ok);
    setPending(null);
  };
  return (
    <ConfirmContext.Provider value={confirm}>
      {children}
      <Dialog open={!!pending} onClose={() => settle(false)} title={pending?.title ?? ''} description={pending?.body}>
        <div className="dialog-actions">
          <button type="button" className="button button-secondary" onClick={() => settle(false)}>
            {pending?.cancelLabel ?? 'Cancel'}
          </button>
          <button type="button" className={`button ${pending?.danger ? 'button-danger' : 'button-primary'}`} onClick={() => settle(true)}>
            {pending?.confirmLabel}
          </button>
        </div>
      </Dialog>
    </ConfirmContext.Provider>
  );
}

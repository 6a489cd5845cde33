/**
 * What every tracked link on the Products and Links pages has: a Copy button (the clipboard, a
 * visible and announced "Copied") and a QR code drawn by `qrcode` as an SVG image (a data: URL,
 * which the CSP's img-src allows), the library loaded only when a code is first shown.
 */
import { useEffect, useId, useState } from 'react';
import { useAnnounce } from './announcer';

/** "Copy link", then "Copied" for two seconds; its name says which link ("Copy link for <what>"). */
export function CopyLinkButton({ url, what }: { url: string; what: string }) {
  const announce = useAnnounce();
  const [copied, setCopied] = useState(false);
  useEffect(() => {
    if (!copied) return;
    const t = window.setTimeout(() => setCopied(false), 2000);
    return () => window.clearTimeout(t);
  }, [copied]);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(url);
      setCopied(true);
      announce(`Copied: the link for ${what} is on the clipboard.`);
    } catch {
      announce('Copying is not allowed here: select the link and copy it.');
    }
  };
  return (
    <button type="button" className="button button-secondary button-small" onClick={() => void copy()} data-copied={copied || undefined}>
      {copied ? 'Copied' : 'Copy link'}
      <span className="visually-hidden"> for {what}</span>
    </button>
  );
}

let qrModule: Promise<typeof import('qrcode')> | null = null;
/** The library, fetched once on first use (its own chunk: not part of the first load). */
const loadQr = () => (qrModule ??= import('qrcode'));

/** An SVG of `text` as a data: URL. */
export async function qrDataUrl(text: string): Promise<string> {
  const qr = await loadQr();
  const svg = await qr.toString(text, { type: 'svg', errorCorrectionLevel: 'M', margin: 2, color: { dark: '#000000', light: '#ffffff' } });
  return `data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg)}`;
}

function QrImage({ url, what }: { url: string; what: string }) {
  const [src, setSrc] = useState<string | null>(null);
  const [failed, setFailed] = useState(false);
  useEffect(() => {
    let live = true;
    qrDataUrl(url).then(
      (s) => live && setSrc(s),
      () => live && setFailed(true),
    );
    return () => {
      live = false;
    };
  }, [url]);
  if (failed) return <p className="field-error">The QR code could not be drawn. Copy the link instead.</p>;
  if (!src)
    return (
      <p className="qr-placeholder" role="status">
        Drawing the QR code…
      </p>
    );
  return (
    <figure className="qr">
      <img src={src} width={160} height={160} alt={`QR code of the tracked link for ${what}`} />
      <figcaption className="muted small">
        Scanning it opens <span className="mono break">{url}</span>
      </figcaption>
    </figure>
  );
}

/** "QR code": shows (and hides) the link's QR code below the button. */
export function QrToggle({ url, what }: { url: string; what: string }) {
  const [open, setOpen] = useState(false);
  const id = useId();
  return (
    <>
      <button
        type="button"
        className="button button-ghost button-small"
        aria-expanded={open}
        aria-controls={id}
        onClick={() => {
          // Fetch the library as soon as it is asked for.
          if (!open) void loadQr();
          setOpen(!open);
        }}
      >
        {open ? 'Hide QR code' : 'QR code'}
        <span className="visually-hidden"> for {what}</span>
      </button>
      <div id={id} className="qr-box" hidden={!open}>
        {open && <QrImage url={url} what={what} />}
      </div>
    </>
  );
}

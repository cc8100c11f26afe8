import { SluiceApiError } from "@sluice/client";
import { errorMessage } from "../lib/api";

/**
 * An action's or a read's failure, as the API's own message, with the list of validation errors a 400/422 carries
 * (`errors`) unless the message already spells each one out. Renders nothing without an error.
 */
export function ErrorBox({ error, title }: { error: unknown; title?: string }) {
  if (error === null || error === undefined) return null;
  const message = errorMessage(error);
  const all = error instanceof SluiceApiError ? error.errors : [];
  const list = all.every((e) => message.includes(e)) ? [] : all;
  return (
    <div className="error-box" role="alert">
      {title && <strong>{title}: </strong>}
      {message}
      {list.length > 0 && (
        <ul aria-label="Validation errors">
          {list.map((e, i) => (
            <li key={i}>{e}</li>
          ))}
        </ul>
      )}
    </div>
  );
}

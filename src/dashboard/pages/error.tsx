/** The page of a refused or failed dashboard request: its status, code and message. */
import { BarePage } from '../layout.js';

const TITLES: Record<number, string> = {
  400: 'Bad request',
  403: 'Not allowed',
  404: 'Not found',
  409: 'Conflict',
  410: 'This link has expired',
  422: 'Check what you entered',
  429: 'Too many attempts',
  500: 'Something went wrong',
};

export function ErrorPage({ status, code, message }: { status: number; code: string; message: string }): JSX.Element {
  const title = TITLES[status] ?? 'Error';
  return (
    <BarePage title={title}>
      <h1 safe>{title}</h1>
      <p safe>{message}</p>
      <p class="hint">
        Code: <code safe>{code}</code>
      </p>
      <p>
        <a href="/dashboard">Back to the dashboard</a>
      </p>
    </BarePage>
  );
}

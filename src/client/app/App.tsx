import { ConnectionNotice } from '../ui/connection-notice';
import { Toaster } from '../ui/toaster';
import { AppRoutes } from './routes';

/** The query and tooltip providers live in SignedInApp: only the signed-in screens use them. */
export function App() {
  return (
    <>
      <AppRoutes />
      <ConnectionNotice />
      <Toaster />
    </>
  );
}

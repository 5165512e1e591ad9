import './lib/zod-config';
import './styles.css';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app/App';
import { loadSignedInApp } from './app/signed-in-module';
import { confirmStoredSession, takeUpSingleSignOn } from './auth/api';
import { watchForNewBuild } from './lib/app-update';
import { registerServiceWorker } from './lib/service-worker';
import { getSession } from './lib/session';
import { startTheme } from './lib/theme';

// Before the first render, so the page never shows in the wrong theme (the CSP allows no inline script).
startTheme();
// A page left open across a new build reloads itself when a script of its build is gone (decision 048).
watchForNewBuild();
void takeUpSingleSignOn().then(confirmStoredSession);
registerServiceWorker();
// Signed in: the signed-in screens' scripts are fetched from the start, not after the first render.
// A failed download is the signed-in screen's to show (it throws as it renders).
if (getSession()) loadSignedInApp().catch(() => undefined);

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);

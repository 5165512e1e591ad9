import './styles.css';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app/App';
import { confirmStoredSession, takeUpSingleSignOn } from './auth/api';
import { registerServiceWorker } from './lib/service-worker';
import { startTheme } from './lib/theme';

// Before the first render, so the page never shows in the wrong theme (the CSP allows no inline script).
startTheme();
void takeUpSingleSignOn().then(confirmStoredSession);
registerServiceWorker();

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);

import { useEffect } from 'react';
import { APP_NAME } from '../../common/spec';

/** The browser tab names the screen ('Archive · Tasklane'): tabs, history and screen readers tell them apart. */
export function useDocumentTitle(screen: string): void {
  useEffect(() => {
    document.title = `${screen} · ${APP_NAME}`;
  }, [screen]);
}

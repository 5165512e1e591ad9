import { useRef, useState } from 'react';
import { flushSync } from 'react-dom';
import { COPY } from '../../common/spec';
import { AuthCard } from './AuthCard';
import { OidcSignIn } from './OidcSignIn';
import { PasskeySignIn } from './PasskeySignIn';
import { RequestAccessForm } from './RequestAccessForm';
import { SendPasswordForm } from './SendPasswordForm';
import { SignInForm } from './SignInForm';
import { TwoFactorStepForm } from './TwoFactorStepForm';

type Mode = 'signIn' | 'twoFactor' | 'sendPassword' | 'requestAccess';

const DESCRIPTIONS: Record<Mode, string> = {
  signIn: 'Enter your username and password.',
  twoFactor: 'Enter the 6-digit code from your authenticator app, or one of your recovery codes.',
  sendPassword: 'Enter the email address of your account and we will email you a link to set a new password.',
  requestAccess: 'Tell us who you are; an administrator will review your request.',
};

const TITLES: Record<Mode, string> = {
  signIn: COPY.signIn,
  twoFactor: 'Two-factor authentication',
  sendPassword: COPY.sendMeMyPassword,
  requestAccess: COPY.requestAccess,
};

/** What a signed-out visitor sees (spec §2): sign in, ask for a password email, or request access. */
export function LoginScreen() {
  const [mode, setMode] = useState<Mode>('signIn');
  const [challenge, setChallenge] = useState('');
  const titleRef = useRef<HTMLHeadingElement>(null);

  // The button that switched modes disappears with its form; focus goes to the new form's title so
  // keyboard and screen-reader users are not left at the top of the page.
  const switchTo = (next: Mode) => {
    flushSync(() => setMode(next));
    titleRef.current?.focus();
  };
  const backToSignIn = () => switchTo('signIn');

  return (
    <AuthCard title={TITLES[mode]} description={DESCRIPTIONS[mode]} titleRef={titleRef}>
      {mode === 'signIn' && (
        <SignInForm
          onSendPassword={() => switchTo('sendPassword')}
          onRequestAccess={() => switchTo('requestAccess')}
          onTwoFactor={(next) => {
            setChallenge(next);
            switchTo('twoFactor');
          }}
        />
      )}
      {mode === 'twoFactor' && <TwoFactorStepForm challenge={challenge} onBack={backToSignIn} />}
      {mode === 'signIn' && (
        // The other ways to sign in; the divider shows once one of them offers a button or link.
        <div className="group mt-4 grid gap-3">
          <div
            aria-hidden
            className="hidden items-center gap-3 text-xs text-muted-foreground uppercase group-has-[a,button]:flex"
          >
            <span className="h-px flex-1 bg-border" />
            or
            <span className="h-px flex-1 bg-border" />
          </div>
          <OidcSignIn />
          <PasskeySignIn />
        </div>
      )}
      {mode === 'sendPassword' && <SendPasswordForm onBack={backToSignIn} />}
      {mode === 'requestAccess' && <RequestAccessForm onBack={backToSignIn} />}
    </AuthCard>
  );
}

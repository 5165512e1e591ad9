import { ArrowLeftIcon } from 'lucide-react';
import { COPY } from '../../common/spec';
import { Button } from '../ui/button';

export function BackToSignIn({ onClick }: { onClick: () => void }) {
  return (
    <Button variant="link" className="h-auto justify-self-center p-0" onClick={onClick}>
      <ArrowLeftIcon aria-hidden />
      {COPY.backToSignIn}
    </Button>
  );
}

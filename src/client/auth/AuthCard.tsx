import type { ReactNode, Ref } from 'react';
import { APP_NAME } from '../../common/spec';
import { useDocumentTitle } from '../lib/document-title';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '../ui/card';
import { LogoMark } from '../ui/logo';

type AuthCardProps = {
  title: string;
  description: ReactNode;
  /** Lets the screen move focus to the title when it swaps one form for another. */
  titleRef?: Ref<HTMLHeadingElement>;
  children: ReactNode;
};

/** The centered card that signed-out screens share, under the app's name. */
export function AuthCard({ title, description, titleRef, children }: AuthCardProps) {
  useDocumentTitle(title);
  return (
    <main className="flex min-h-screen items-center justify-center bg-linear-to-b from-accent/70 via-background to-background px-4 py-12">
      <div className="w-full max-w-sm">
        <div className="mb-6 flex flex-col items-center gap-3 text-center">
          <LogoMark className="size-11 rounded-xl" />
          <h1 className="text-2xl font-semibold tracking-tight">{APP_NAME}</h1>
        </div>
        <Card className="shadow-md">
          <CardHeader>
            <CardTitle ref={titleRef} tabIndex={-1} className="outline-none">
              {title}
            </CardTitle>
            <CardDescription>{description}</CardDescription>
          </CardHeader>
          <CardContent>{children}</CardContent>
        </Card>
      </div>
    </main>
  );
}

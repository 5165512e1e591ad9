import { CompassIcon } from 'lucide-react';
import { Link } from 'wouter';
import { COPY } from '../../common/spec';
import { Button } from '../ui/button';
import { Card, CardContent } from '../ui/card';

export function NotFoundPage() {
  return (
    <main className="flex min-h-screen items-center justify-center px-4 py-12">
      <Card className="w-full max-w-md">
        <CardContent className="flex flex-col items-center gap-4 pt-8 text-center">
          <CompassIcon aria-hidden className="size-10 text-muted-foreground" />
          <h1 className="text-2xl font-semibold tracking-tight">{COPY.pageNotFound}</h1>
          <p className="text-sm text-muted-foreground">There is nothing at this address.</p>
          <Button asChild>
            <Link href="/">Go Home</Link>
          </Button>
        </CardContent>
      </Card>
    </main>
  );
}

import { CompassIcon } from 'lucide-react';
import { Link } from 'wouter';
import { COPY } from '../../common/spec';
import { useDocumentTitle } from '../lib/document-title';
import { Button } from '../ui/button';
import { Card, CardContent } from '../ui/card';
import { PageHeading } from '../ui/page-heading';

export function NotFoundPage() {
  useDocumentTitle(COPY.pageNotFound);
  return (
    <main className="flex min-h-screen items-center justify-center px-4 py-12">
      <Card className="w-full max-w-md">
        <CardContent className="flex flex-col items-center gap-4 pt-8 text-center">
          <CompassIcon aria-hidden className="size-10 text-muted-foreground" />
          <PageHeading className="text-2xl font-semibold tracking-tight">{COPY.pageNotFound}</PageHeading>
          <p className="text-sm text-muted-foreground">There is nothing at this address.</p>
          <Button asChild>
            <Link href="/">Go Home</Link>
          </Button>
        </CardContent>
      </Card>
    </main>
  );
}

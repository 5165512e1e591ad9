import { type ComponentProps, memo, type ReactNode } from 'react';
import Markdown, { type Components, defaultUrlTransform } from 'react-markdown';
import { findMentions } from '../../common/comments';
import { cn } from '../lib/cn';

/** The few mdast fields the mention plugin reads and writes. */
type MdNode = { type: string; value?: string; children?: MdNode[]; data?: Record<string, unknown> };

/** Text the plugin leaves alone: a link's words are the link's. */
const SKIP = new Set(['link', 'linkReference']);
const MENTION_ELEMENT = 'mark';

/**
 * A remark plugin: each `@username` of a project member, in ordinary text, becomes a <mark> (shown
 * highlighted). Anyone else's @name stays text, as the server stores no mention for it.
 */
function remarkMentions({ usernames }: { usernames: string[] }) {
  const split = (node: MdNode): MdNode[] => {
    const value = node.value ?? '';
    const out: MdNode[] = [];
    let at = 0;
    for (const mention of findMentions(value, usernames)) {
      if (mention.index > at) out.push({ type: 'text', value: value.slice(at, mention.index) });
      out.push({
        type: 'emphasis',
        data: { hName: MENTION_ELEMENT },
        children: [{ type: 'text', value: value.slice(mention.index, mention.index + mention.length) }],
      });
      at = mention.index + mention.length;
    }
    if (out.length === 0) return [node];
    if (at < value.length) out.push({ type: 'text', value: value.slice(at) });
    return out;
  };
  const walk = (node: MdNode) => {
    // A mention made here is not looked into again.
    if (!node.children || SKIP.has(node.type) || node.data?.hName === MENTION_ELEMENT) return;
    node.children = node.children.flatMap((child) => (child.type === 'text' ? split(child) : [child]));
    for (const child of node.children) walk(child);
  };
  return (tree: MdNode) => walk(tree);
}

/**
 * A link that opens apart from the app and tells the page nothing. defaultUrlTransform has emptied
 * the address of a `javascript:`, `data:` or `vbscript:` link: its words then show as plain text.
 */
function SafeLink({ href, children }: { href?: string; children?: ReactNode }) {
  if (!href) return <span>{children}</span>;
  return (
    <a
      href={href}
      target="_blank"
      rel="noopener noreferrer"
      className="font-medium text-primary underline underline-offset-2 dark:text-ring"
    >
      {children}
    </a>
  );
}

/** A comment's heading stays inside the comment: it does not join the page's outline. */
const Strong = ({ children }: { children?: ReactNode }) => <p className="font-semibold">{children}</p>;

const COMPONENTS: Components = {
  a: ({ href, children }) => <SafeLink href={href}>{children}</SafeLink>,
  // Pictures are not fetched from wherever a comment points (the policy would refuse most anyway).
  img: ({ src, alt }) => <SafeLink href={typeof src === 'string' ? src : undefined}>{alt || src}</SafeLink>,
  h1: Strong,
  h2: Strong,
  h3: Strong,
  h4: Strong,
  h5: Strong,
  h6: Strong,
  mark: ({ children }) => (
    <mark className="rounded-sm bg-primary/15 px-0.5 font-medium text-foreground">{children}</mark>
  ),
};

const BODY_CLASSES =
  'grid gap-2 text-sm break-words [&_blockquote]:border-l-2 [&_blockquote]:pl-3 [&_blockquote]:text-muted-foreground [&_code]:rounded-sm [&_code]:bg-muted [&_code]:px-1 [&_code]:font-mono [&_code]:text-[0.8125rem] [&_hr]:border-border [&_ol]:list-decimal [&_ol]:pl-5 [&_pre]:overflow-x-auto [&_pre]:rounded-md [&_pre]:bg-muted [&_pre]:p-2 [&_pre_code]:bg-transparent [&_pre_code]:p-0 [&_ul]:list-disc [&_ul]:pl-5';

type CommentMarkdownProps = Omit<ComponentProps<'div'>, 'children'> & {
  body: string;
  /** The project's members' usernames: their @mentions show highlighted. */
  usernames: string[];
};

/**
 * A comment's Markdown, rendered safely (decision 031): raw HTML shows as the text it is, never as
 * markup; links lose unsafe addresses and open in a new tab with rel="noopener noreferrer".
 */
export const CommentMarkdown = memo(function CommentMarkdown({
  body,
  usernames,
  className,
  ...props
}: CommentMarkdownProps) {
  return (
    <div className={cn(BODY_CLASSES, className)} {...props}>
      <Markdown
        remarkPlugins={[[remarkMentions, { usernames }]]}
        components={COMPONENTS}
        urlTransform={defaultUrlTransform}
      >
        {body}
      </Markdown>
    </div>
  );
});

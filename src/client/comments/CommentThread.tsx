import { PencilIcon, Trash2Icon } from 'lucide-react';
import {
  type FormEvent,
  type KeyboardEvent,
  type RefObject,
  useId,
  useLayoutEffect,
  useRef,
  useState,
} from 'react';
import { COMMENT_LIMITS, type Comment, commentBodySchema } from '../../common/comments';
import { errorMessage } from '../lib/api';
import { rescueFocusAfterRender } from '../lib/focus';
import { useSession } from '../lib/session';
import type { TaskPermissions } from '../projects/api';
import { Button } from '../ui/button';
import { QueryList } from '../ui/section';
import { Textarea } from '../ui/textarea';
import { errorToast } from '../ui/toasts';
import { formatMoment } from './activity';
import {
  COMMENT_ERRORS,
  isKeptComment,
  useComments,
  useDeleteComment,
  useEditComment,
  usePostComment,
} from './api';
import { CommentMarkdown } from './CommentMarkdown';

export const COMMENT_COPY = {
  heading: 'Comments',
  empty: 'No comments yet.',
  composerLabel: 'Add a comment',
  placeholder: 'Write a comment. Markdown works; @username mentions a member.',
  send: 'Comment',
  sendHint: 'Ctrl+Enter or ⌘ Enter sends',
  edit: 'Edit comment',
  editLabel: 'Edit your comment',
  save: 'Save',
  cancel: 'Cancel',
  remove: 'Delete comment',
  edited: 'edited',
  /** Issue 31: a comment written offline, kept in the outbox. */
  waiting: 'Not saved yet',
} as const;

/** Ctrl+Enter, or Cmd+Enter on a Mac, sends what the field holds. */
const isSendKey = (event: KeyboardEvent) =>
  event.key === 'Enter' && (event.ctrlKey || event.metaKey) && !event.nativeEvent.isComposing;

/** The body to send, or the schema's words for what is wrong with it. */
function parseBody(text: string): { body: string } | { error: string } {
  const parsed = commentBodySchema.safeParse({ body: text });
  return parsed.success ? parsed.data : { error: parsed.error.issues[0]?.message ?? COMMENT_ERRORS.post };
}

type ThreadProps = {
  taskId: number;
  /** What the caller's role lets them do (useTaskPermissions). */
  can: TaskPermissions;
  /** The members' usernames: their @mentions show highlighted. */
  usernames: string[];
};

/**
 * A task's comments in its expanded card (issue 21), oldest first, with the composer under them.
 * What a role may not do is absent: a viewer sees no composer; only the author edits a comment;
 * the author or an admin deletes one.
 */
export function CommentThread({ taskId, can, usernames }: ThreadProps) {
  const headingId = useId();
  const comments = useComments(taskId);
  const composerRef = useRef<HTMLTextAreaElement>(null);
  const me = useSession()?.user.id;
  const canComment = can.comment;
  const count = comments.data?.length ?? 0;

  return (
    <section aria-labelledby={headingId} className="grid gap-3">
      <h3 id={headingId} className="text-sm leading-none font-medium">
        {COMMENT_COPY.heading}
        {count > 0 && (
          <>
            {' '}
            <span className="text-muted-foreground tabular-nums">({count})</span>
          </>
        )}
      </h3>
      <QueryList query={comments} what="the comments" empty={COMMENT_COPY.empty}>
        {(items) =>
          items.map((comment) => (
            <CommentItem
              key={comment.id}
              comment={comment}
              usernames={usernames}
              canEdit={canComment && comment.authorId === me && !isKeptComment(comment)}
              canDelete={((canComment && comment.authorId === me) || can.moderate) && !isKeptComment(comment)}
              onDeleted={(item) => rescueFocusAfterRender(() => composerRef.current, item)}
            />
          ))
        }
      </QueryList>
      {canComment && <Composer taskId={taskId} textareaRef={composerRef} />}
    </section>
  );
}

function Composer({
  taskId,
  textareaRef,
}: {
  taskId: number;
  textareaRef: RefObject<HTMLTextAreaElement | null>;
}) {
  const id = useId();
  const hintId = useId();
  const [text, setText] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const post = usePostComment(taskId);

  const send = (event?: FormEvent) => {
    event?.preventDefault();
    if (post.isPending) return;
    const parsed = parseBody(text);
    if ('error' in parsed) {
      setProblem(parsed.error);
      return;
    }
    setProblem(null);
    post.mutate(parsed.body, {
      onSuccess: () => setText((current) => (current === text ? '' : current)),
      onError: (error) => errorToast(errorMessage(error, COMMENT_ERRORS.post)),
    });
  };

  return (
    <form onSubmit={send} className="grid gap-2">
      <label htmlFor={id} className="text-sm font-medium">
        {COMMENT_COPY.composerLabel}
      </label>
      <Textarea
        ref={textareaRef}
        id={id}
        name="comment"
        value={text}
        maxLength={COMMENT_LIMITS.bodyMax}
        placeholder={COMMENT_COPY.placeholder}
        aria-describedby={hintId}
        aria-invalid={problem ? true : undefined}
        onChange={(event) => {
          setText(event.target.value);
          setProblem(null);
        }}
        onKeyDown={(event) => {
          if (!isSendKey(event)) return;
          event.preventDefault();
          send();
        }}
      />
      <div className="flex flex-wrap items-center justify-between gap-2">
        <p id={hintId} className={problem ? 'text-sm text-destructive' : 'text-xs text-muted-foreground'}>
          {problem ?? COMMENT_COPY.sendHint}
        </p>
        <Button type="submit" size="sm" aria-disabled={post.isPending || undefined}>
          {COMMENT_COPY.send}
        </Button>
      </div>
    </form>
  );
}

type ItemProps = {
  comment: Comment;
  usernames: string[];
  canEdit: boolean;
  canDelete: boolean;
  /** Told the deleted comment's element, which may still be on the page, with focus in it. */
  onDeleted: (item: Element | null) => void;
};

function CommentItem({ comment, usernames, canEdit, canDelete, onDeleted }: ItemProps) {
  const [editing, setEditing] = useState(false);
  const editRef = useRef<HTMLButtonElement>(null);
  const edit = useEditComment(comment.taskId);
  const remove = useDeleteComment(comment.taskId);

  // Leaving the edit form puts focus back on 'Edit comment', which shows again.
  const refocusEdit = useRef(false);
  useLayoutEffect(() => {
    if (editing || !refocusEdit.current) return;
    refocusEdit.current = false;
    editRef.current?.focus();
  }, [editing]);
  const stopEditing = () => {
    refocusEdit.current = true;
    setEditing(false);
  };

  return (
    <li className="grid gap-1.5 rounded-lg border bg-muted/30 px-3 py-2.5">
      <div className="flex flex-wrap items-center gap-x-2 gap-y-1 text-xs text-muted-foreground">
        <span className="text-sm font-medium text-foreground">{comment.authorName}</span>
        <time dateTime={comment.createdAt}>{formatMoment(comment.createdAt)}</time>
        {comment.editedAt && <span title={formatMoment(comment.editedAt)}>({COMMENT_COPY.edited})</span>}
        {isKeptComment(comment) && <span className="italic">{COMMENT_COPY.waiting}</span>}
        <span className="ml-auto flex items-center">
          {canEdit && !editing && (
            <Button
              ref={editRef}
              variant="ghost"
              size="icon"
              className="size-7 text-muted-foreground"
              aria-label={COMMENT_COPY.edit}
              onClick={() => setEditing(true)}
            >
              <PencilIcon aria-hidden />
            </Button>
          )}
          {canDelete && (
            <Button
              variant="ghost"
              size="icon"
              className="size-7 text-muted-foreground hover:bg-destructive/10 hover:text-destructive"
              aria-label={COMMENT_COPY.remove}
              aria-disabled={remove.isPending || undefined}
              onClick={(event) => {
                if (remove.isPending) return;
                const item = event.currentTarget.closest('li');
                // Not mutate's callbacks: they are dropped once this comment has left the thread,
                // which the thread's refetch can do before the mutation settles.
                remove.mutateAsync(comment.id).then(
                  () => onDeleted(item),
                  (error: unknown) => errorToast(errorMessage(error, COMMENT_ERRORS.remove)),
                );
              }}
            >
              <Trash2Icon aria-hidden />
            </Button>
          )}
        </span>
      </div>
      {editing ? (
        <EditForm
          initial={comment.body}
          pending={edit.isPending}
          onCancel={stopEditing}
          onSave={(body) =>
            edit.mutate(
              { id: comment.id, body },
              {
                onSuccess: stopEditing,
                onError: (error) => errorToast(errorMessage(error, COMMENT_ERRORS.edit)),
              },
            )
          }
        />
      ) : (
        <CommentMarkdown body={comment.body} usernames={usernames} />
      )}
    </li>
  );
}

function EditForm({
  initial,
  pending,
  onSave,
  onCancel,
}: {
  initial: string;
  pending: boolean;
  onSave: (body: string) => void;
  onCancel: () => void;
}) {
  const id = useId();
  const [text, setText] = useState(initial);
  const [problem, setProblem] = useState<string | null>(null);
  const save = (event?: FormEvent) => {
    event?.preventDefault();
    if (pending) return;
    const parsed = parseBody(text);
    if ('error' in parsed) setProblem(parsed.error);
    else onSave(parsed.body);
  };
  return (
    <form onSubmit={save} className="grid gap-2">
      <label htmlFor={id} className="sr-only">
        {COMMENT_COPY.editLabel}
      </label>
      <Textarea
        id={id}
        name="comment-edit"
        value={text}
        maxLength={COMMENT_LIMITS.bodyMax}
        autoFocus
        aria-invalid={problem ? true : undefined}
        onChange={(event) => {
          setText(event.target.value);
          setProblem(null);
        }}
        onKeyDown={(event) => {
          if (isSendKey(event)) {
            event.preventDefault();
            save();
          } else if (event.key === 'Escape') {
            event.preventDefault();
            event.stopPropagation();
            onCancel();
          }
        }}
      />
      {problem && <p className="text-sm text-destructive">{problem}</p>}
      <div className="flex justify-end gap-2">
        <Button type="button" variant="ghost" size="sm" onClick={onCancel}>
          {COMMENT_COPY.cancel}
        </Button>
        <Button type="submit" size="sm" aria-disabled={pending || undefined}>
          {COMMENT_COPY.save}
        </Button>
      </div>
    </form>
  );
}

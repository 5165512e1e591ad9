import { counted } from './plural';
/**
 * Constants and copy from the product specification (../shared/spec.md), named once.
 * Both the server and the client import from here so a string or limit is never typed twice.
 */

export const APP_NAME = 'Tasklane';

/** spec §9 */
export const LIMITS = {
  minPasswordLength: 4,
  attachmentMaxFiles: 5,
  attachmentMaxBytes: 10 * 1024 * 1024,
  initialTaskPosition: 0,
  clientTaskUserId: 1,
  sizeUnitStep: 1024,
  skeletonCards: 3,
  listMinHeightPx: 100,
  descriptionClampLines: 3,
} as const;

/** spec §9: timings in milliseconds */
export const TIMINGS = {
  outsideClickCollapseMs: 100,
  pointerLeaveCollapseMs: 300,
  cardTooltipDelayMs: 200,
  tooltipDelayMs: 700,
  tooltipSkipDelayMs: 300,
  toastDefaultMs: 5000,
  toastCredentialsMs: 10_000,
  toastPasswordSentMs: 8000,
  toastAccessRequestMs: 8000,
  toastRemoveDelayMs: 1_000_000,
  toastLimit: 1,
  toastSwipeThreshold: 50,
  attachmentProgressStepMs: 150,
  attachmentStaggerMs: 300,
  attachmentProgressMinStep: 5,
  attachmentProgressMaxStep: 20,
} as const;

/** spec §4, §9 */
export const CONFETTI = {
  particleCount: 50,
  spread: 45,
  origin: { y: 0.7 },
  colors: ['#a855f7', '#9333ea', '#7e22ce', '#c084fc', '#d8b4fe'],
} as const;

/** spec §5: allowed MIME types for attachments in the Add New Task form */
export const ATTACHMENT_TYPES = [
  'image/jpeg',
  'image/png',
  'image/gif',
  'application/pdf',
  'text/plain',
  'application/msword',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  'application/vnd.ms-excel',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  'video/mp4',
  'audio/mpeg',
  'audio/wav',
  'audio/x-wav',
] as const;

/** spec §1 */
export const THEME_STORAGE_KEY = 'theme';
/** spec §3 */
export const SESSION_STORAGE_KEYS = {
  sessionId: 'sessionId',
  user: 'user',
  authenticated: 'isAuthenticated',
} as const;

/** spec §7 */
export const SESSION_HEADER = 'user-session';
export const SESSION_HEADER_ALT = 'x-session-id';

/** Validation messages, spec §5 */
export const VALIDATION = {
  taskTitleRequired: 'Task title is required',
  agentTitleRequired: 'Title is required',
  agentPromptRequired: 'Prompt is required',
  firstNameRequired: 'First name is required',
  validEmailRequired: 'Valid email is required',
  passwordsDoNotMatch: 'New passwords do not match.',
  passwordTooShort: 'Password must be at least 4 characters long.',
  loginRequiredForPasswordChange: 'Please log in to change your password.',
} as const;

/** Error copy, spec §8 */
export const ERRORS = {
  createTask: 'Failed to create task',
  someFilesFailed: 'Task created but some files failed to upload',
  reorder: 'Failed to reorder tasks',
  updateTask: 'Failed to update task',
  updateStatus: 'Failed to update task status',
  updateTitle: 'Failed to update title',
  updateDescription: 'Failed to update description',
  restoreTitle: 'Restore Failed',
  restore: 'Failed to restore task. Please try again.',
  aiNotConnectedTitle: 'AI Not Connected',
  aiNotConnected: 'Please connect your OpenAI API key first',
  aiErrorTitle: 'AI Error',
  aiExecute: 'Failed to execute task',
  updateContext: 'Failed to update context',
  deleteTask: 'Failed to delete task',
  copyNotes: 'Failed to copy notes to clipboard',
  deleteDraft: 'Failed to delete AI draft',
  moveDraft: 'Failed to move AI draft to notes',
  clearNotes: 'Failed to clear notes',
  saveAgent: 'Failed to save AI agent',
  deleteAgent: 'Failed to delete AI agent',
  fetchFiles: 'Failed to fetch files',
  uploadTitle: 'Upload Error',
  upload: 'Failed to upload files',
  uploadFallback: 'Upload failed',
  deleteFile: 'Failed to delete file',
  deleteFileFallback: 'Delete failed',
  downloadTitle: 'Download Failed',
  download: 'Could not download file. Please try again.',
  downloadStatus: (status: number) => `Download failed: ${status}`,
  changePassword: 'Failed to change password.',
  createUser: 'Failed to create user account',
  updateUserStatus: 'Failed to update user status',
  resendInvite: 'Failed to resend user invite',
  deleteUser: 'Failed to delete user account',
  approveRequest: 'Failed to approve access request',
  denyRequest: 'Failed to deny access request',
  invalidLogin: 'Invalid username or password.',
  network: 'Unable to connect to server. Please try again.',
  emailNotFound: 'Email not found in our system.',
  sendPassword: 'Unable to send password. Please try again.',
  accessRequest: 'Failed to submit access request.',
  accessRequestNetwork: 'Unable to submit access request. Please try again.',
  genericTitle: 'Error',
} as const;

/** Success toasts, spec §8: [title, description] */
export const TOASTS = {
  taskCreated: 'Task Created',
  passwordChanged: 'Password Changed',
  welcomeBack: 'Welcome back!',
  passwordSent: 'Password Sent',
  accessRequestSubmitted: 'Access Request Submitted',
  taskRestored: 'Task Restored',
  taskCompleted: ['Task Completed!', 'Great job! Task moved to archive.'],
  taskReopened: ['Task Reopened', 'Task moved back to active list.'],
  taskExecuted: ['Task Executed', 'AI has completed the task. Review the draft below.'],
  contextUpdated: 'Context Updated',
  contextSwitched: (name: string) => `Switched to: ${name}`,
  taskDeleted: ['Task Deleted', 'Task has been permanently deleted'],
  copied: ['Copied to clipboard', 'Notes have been copied to your clipboard'],
  draftDeleted: ['AI Draft Deleted', 'AI draft has been removed from this task'],
  draftMoved: ['AI Draft Moved', 'AI draft content has been added to notes'],
  notesCleared: ['Notes Cleared', 'Task notes have been cleared'],
  fileDeleted: ['File Deleted', 'File removed successfully'],
  filesUploading: 'Files Uploading',
  uploadingCount: (n: number) => `Uploading ${counted(n, 'file', 'files')}...`,
} as const;

/** Labels and other copy, spec §2 */
export const COPY = {
  yourTasks: 'Your Tasks',
  addTask: 'Add Task',
  addNewTask: 'Add New Task',
  active: 'Active',
  archived: 'Archived',
  noTasks: 'No tasks yet',
  noTasksHint: 'Get started by creating your first task',
  noArchivedTasks: 'No archived tasks',
  // Issue 13: search and filters.
  searchTasks: 'Search tasks',
  noTasksMatch: 'No tasks match this filter',
  clearFilter: 'Clear filter',
  clearFilterToReorder: 'Clear the filter to reorder',
  completed: 'Completed',
  descriptionPlaceholder: 'Click to add description...',
  notesPlaceholder: 'Notes will appear here when moved from AI Draft.',
  deleteTask: 'Delete Task',
  deleteDraft: 'Delete Draft',
  aiDraft: 'AI Draft',
  aiBusy: 'AI is executing your task...',
  noAgent: 'No Agent',
  unknownAgent: 'Unknown Agent',
  noAgentLower: 'No agent',
  unknownAgentLower: 'Unknown agent',
  noFiles: 'No Files',
  fileCount: (n: number) => counted(n, 'File', 'Files'),
  loadingFiles: 'Loading files...',
  addFiles: 'Add Files',
  pageNotFound: 'Page Not Found',
  backToTasks: 'Back to Tasks',
  archiveOverview: 'Archive Overview',
  activeTasks: 'Active Tasks',
  adminSuffix: '(Admin)',
  manageUsers: 'Manage Users',
  aiAgents: 'AI Agents',
  faq: 'FAQ',
  changePassword: 'Change Password',
  security: 'Security',
  logOut: 'Log Out',
  manageAgents: 'Manage Agents',
  tutorial: 'Tutorial',
  userManagement: 'User Management',
  signIn: 'Sign In',
  sendMeMyPassword: 'Send Me My Password',
  requestAccess: 'Request Access',
  backToSignIn: 'Back to Sign In',
} as const;

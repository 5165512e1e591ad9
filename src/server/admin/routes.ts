import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import {
  accessRequestSchema,
  adminUserListItemSchema,
  adminUserSchema,
  auditEntrySchema,
  createUserBodySchema,
  credentialsResponseSchema,
} from '../../common/admin';
import { noContentSchema } from '../../common/api';
import { idParam } from '../../common/ids';
import { requireAdmin } from '../http/session';
import type { ZodTypeProvider } from '../http/zod';
import { type Actor, type AdminServiceDeps, createAdminService } from './service';

const idParams = z.object({ id: idParam() });

/** Only behind requireAdmin, which guarantees the session. */
const actorOf = (request: FastifyRequest): Actor => ({
  user: request.session!.user,
  idHash: request.session!.idHash,
});

/** Spec §7 admin calls and DESIGN.md §4 'Admin'. Every route needs an administrator. */
export async function adminRoutes(fastify: FastifyInstance, deps: AdminServiceDeps) {
  const admin = createAdminService(deps);

  await fastify.register(async (scope) => {
    // onRequest, before body validation: a stranger learns 401/403, never what a valid body looks like.
    scope.addHook('onRequest', requireAdmin);
    const app = scope.withTypeProvider<ZodTypeProvider>();

    app.get(
      '/api/admin/users',
      {
        schema: {
          summary: 'List users',
          tags: ['Admin'],
          operationId: 'listUsers',
          description: "With each user's AI token use this month (UTC).",
          response: { 200: z.array(adminUserListItemSchema) },
        },
      },
      () => admin.listUsers(),
    );

    app.post(
      '/api/admin/users',
      {
        schema: {
          summary: 'Create a user',
          description:
            'The username comes from the first name; the password is in this answer once and e-mailed.',
          tags: ['Admin'],
          operationId: 'createUser',
          body: createUserBodySchema,
          response: { 201: credentialsResponseSchema },
        },
      },
      async (request, reply) => reply.code(201).send(await admin.createUser(actorOf(request), request.body)),
    );

    app.patch(
      '/api/admin/users/:id/suspend',
      {
        schema: {
          summary: 'Suspend or reactivate a user',
          tags: ['Admin'],
          operationId: 'toggleUserSuspended',
          params: idParams,
          response: { 200: adminUserSchema },
        },
      },
      (request) => admin.toggleSuspended(actorOf(request), request.params.id),
    );

    app.post(
      '/api/admin/users/:id/resend-invite',
      {
        schema: {
          summary: 'Resend an invite with a new password',
          tags: ['Admin'],
          operationId: 'resendInvite',
          params: idParams,
          response: { 200: credentialsResponseSchema },
        },
      },
      (request) => admin.resendInvite(actorOf(request), request.params.id),
    );

    app.delete(
      '/api/admin/users/:id',
      {
        schema: {
          summary: 'Delete a user',
          tags: ['Admin'],
          operationId: 'deleteUser',
          params: idParams,
          response: { 204: noContentSchema },
        },
      },
      async (request, reply) => {
        await admin.deleteUser(actorOf(request), request.params.id);
        return reply.code(204).send();
      },
    );

    app.delete(
      '/api/admin/users/:id/2fa',
      {
        schema: {
          summary: 'Turn off a user’s two-factor sign-in',
          description:
            'Removes the secret and the recovery codes, writes `user.2fa_reset` to the audit log and ' +
            'e-mails the user. Nothing happens when it is off. Not for one’s own account.',
          tags: ['Admin'],
          operationId: 'resetUserTwoFactor',
          params: idParams,
          response: { 204: noContentSchema },
        },
      },
      async (request, reply) => {
        await admin.resetTwoFactor(actorOf(request), request.params.id);
        return reply.code(204).send();
      },
    );

    app.get(
      '/api/admin/access-requests',
      {
        schema: {
          summary: 'List access requests',
          tags: ['Admin'],
          operationId: 'listAccessRequests',
          response: { 200: z.array(accessRequestSchema) },
        },
      },
      () => admin.listAccessRequests(),
    );

    app.patch(
      '/api/admin/access-requests/:id/approve',
      {
        schema: {
          summary: 'Approve an access request',
          description: 'Creates the account with the requested username and e-mails the credentials.',
          tags: ['Admin'],
          operationId: 'approveAccessRequest',
          params: idParams,
          response: { 200: credentialsResponseSchema },
        },
      },
      (request) => admin.approveAccessRequest(actorOf(request), request.params.id),
    );

    app.patch(
      '/api/admin/access-requests/:id/deny',
      {
        schema: {
          summary: 'Deny an access request',
          tags: ['Admin'],
          operationId: 'denyAccessRequest',
          params: idParams,
          response: { 204: noContentSchema },
        },
      },
      async (request, reply) => {
        await admin.denyAccessRequest(actorOf(request), request.params.id);
        return reply.code(204).send();
      },
    );

    app.get(
      '/api/admin/audit-log',
      {
        schema: {
          summary: 'The audit log',
          tags: ['Admin'],
          operationId: 'getAuditLog',
          response: { 200: z.array(auditEntrySchema) },
        },
      },
      () => admin.auditLog(),
    );
  });
}

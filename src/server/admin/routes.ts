import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import {
  accessRequestSchema,
  adminUserSchema,
  auditEntrySchema,
  createUserBodySchema,
  credentialsResponseSchema,
} from '../../common/admin';
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

    app.get('/api/admin/users', { schema: { response: { 200: z.array(adminUserSchema) } } }, () =>
      admin.listUsers(),
    );

    app.post(
      '/api/admin/users',
      { schema: { body: createUserBodySchema, response: { 201: credentialsResponseSchema } } },
      async (request, reply) => reply.code(201).send(await admin.createUser(actorOf(request), request.body)),
    );

    app.patch(
      '/api/admin/users/:id/suspend',
      { schema: { params: idParams, response: { 200: adminUserSchema } } },
      (request) => admin.toggleSuspended(actorOf(request), request.params.id),
    );

    app.post(
      '/api/admin/users/:id/resend-invite',
      { schema: { params: idParams, response: { 200: credentialsResponseSchema } } },
      (request) => admin.resendInvite(actorOf(request), request.params.id),
    );

    app.delete('/api/admin/users/:id', { schema: { params: idParams } }, async (request, reply) => {
      await admin.deleteUser(actorOf(request), request.params.id);
      return reply.code(204).send();
    });

    app.delete('/api/admin/users/:id/2fa', { schema: { params: idParams } }, async (request, reply) => {
      await admin.resetTwoFactor(actorOf(request), request.params.id);
      return reply.code(204).send();
    });

    app.get(
      '/api/admin/access-requests',
      { schema: { response: { 200: z.array(accessRequestSchema) } } },
      () => admin.listAccessRequests(),
    );

    app.patch(
      '/api/admin/access-requests/:id/approve',
      { schema: { params: idParams, response: { 200: credentialsResponseSchema } } },
      (request) => admin.approveAccessRequest(actorOf(request), request.params.id),
    );

    app.patch(
      '/api/admin/access-requests/:id/deny',
      { schema: { params: idParams } },
      async (request, reply) => {
        await admin.denyAccessRequest(actorOf(request), request.params.id);
        return reply.code(204).send();
      },
    );

    app.get('/api/admin/audit-log', { schema: { response: { 200: z.array(auditEntrySchema) } } }, () =>
      admin.auditLog(),
    );
  });
}

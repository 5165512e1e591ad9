import type { PublicKeyCredentialCreationOptionsJSON } from '@simplewebauthn/browser';
import { useQuery } from '@tanstack/react-query';
import type { AuthProviders } from '../../common/auth';
import { PASSKEYS_PATH, type Passkey, type RenamePasskeyBody } from '../../common/passkeys';
import { apiRequest } from '../lib/api';
import { loadWebAuthn } from '../lib/webauthn';

/** Query keys are the URLs the default query function GETs (spec §7). */
export const passkeysKey = [PASSKEYS_PATH] as const;
export const authProvidersKey = ['/api/auth/providers'] as const;

// The list lives in the Security dialog, which mounts its content on each opening: show what is true now.
export const usePasskeys = () => useQuery<Passkey[]>({ queryKey: passkeysKey, refetchOnMount: 'always' });

/** Whether this server can take passkeys at all (APP_URL at a host name). */
export const useAuthProviders = () => useQuery<AuthProviders>({ queryKey: authProvidersKey });

/**
 * 'Add a passkey': the server's options, the browser's prompt (the person picks where to keep the
 * passkey and confirms it is them), then the server checks and stores it under the given name.
 */
export async function addPasskey(name: string): Promise<Passkey> {
  const [{ startRegistration }, res] = await Promise.all([
    loadWebAuthn(),
    apiRequest('POST', `${PASSKEYS_PATH}/register/options`),
  ]);
  const { options } = (await res.json()) as { options: PublicKeyCredentialCreationOptionsJSON };
  const response = await startRegistration({ optionsJSON: options });
  return (await (
    await apiRequest('POST', `${PASSKEYS_PATH}/register`, { name, response })
  ).json()) as Passkey;
}

export const renamePasskey = async ({ id, name }: { id: number } & RenamePasskeyBody) =>
  (await (await apiRequest('PATCH', `${PASSKEYS_PATH}/${id}`, { name })).json()) as Passkey;

export const removePasskey = async (id: number) => {
  await apiRequest('DELETE', `${PASSKEYS_PATH}/${id}`);
};

import { zodResolver } from '@hookform/resolvers/zod';
import { UserPlusIcon } from 'lucide-react';
import { useForm } from 'react-hook-form';
import { createUserBodySchema } from '../../common/admin';
import { ERRORS } from '../../common/spec';
import { FormField, SubmitButton } from '../ui/form';
import { Input } from '../ui/input';
import { createUser, useAdminAction } from './api';
import { showCredentials, showFailure } from './toasts';

const EMPTY = { firstName: '', email: '' };

/** Spec §5: first name and a valid e-mail; the server derives the username and the password. */
export function CreateUserForm() {
  const {
    register,
    handleSubmit,
    reset,
    formState: { errors },
  } = useForm({ resolver: zodResolver(createUserBodySchema), defaultValues: EMPTY });
  const create = useAdminAction(createUser);

  const onSubmit = handleSubmit(async (values) => {
    try {
      showCredentials('User Account Created', await create.mutateAsync(values));
      reset(EMPTY);
    } catch (error) {
      showFailure(ERRORS.createUser, error);
    }
  });

  return (
    <form onSubmit={onSubmit} noValidate className="grid items-start gap-3 sm:grid-cols-[1fr_1fr_auto]">
      <FormField label="First name" error={errors.firstName?.message}>
        <Input autoComplete="off" {...register('firstName')} />
      </FormField>
      <FormField label="Email" error={errors.email?.message}>
        <Input type="email" autoComplete="off" {...register('email')} />
      </FormField>
      <SubmitButton pending={create.isPending} className="sm:mt-[1.375rem]">
        {!create.isPending && <UserPlusIcon aria-hidden />}
        Create User
      </SubmitButton>
    </form>
  );
}

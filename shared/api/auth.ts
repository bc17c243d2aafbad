/** Contracts of /api/auth/*: registration, sign-in, sign-out, current user. */
import * as z from 'zod';
import { LOCALES } from '../i18n/locales.ts';

export const Email = z.string().trim().toLowerCase().pipe(z.email('Enter a valid email address.')).pipe(z.string().max(254));

export const RegisterInput = z.strictObject({
  email: Email,
  password: z.string().min(10, 'Use at least 10 characters.').max(256),
  name: z.string().trim().min(1, 'Enter your name.').max(100),
  /** The interface language the person was using when they registered. */
  locale: z.enum(LOCALES).optional(),
});
export type RegisterInput = z.infer<typeof RegisterInput>;

export const LoginInput = z.strictObject({
  email: Email,
  password: z.string().min(1).max(256),
});
export type LoginInput = z.infer<typeof LoginInput>;

export const UserView = z.object({
  id: z.string(),
  email: z.string(),
  name: z.string(),
  /** The interface language the person chose; absent until they choose one. */
  locale: z.enum(LOCALES).optional(),
});
export type UserView = z.infer<typeof UserView>;

/** PATCH /api/auth/me: the person's own preferences. */
export const UpdateMeInput = z.strictObject({ locale: z.enum(LOCALES) });
export type UpdateMeInput = z.infer<typeof UpdateMeInput>;

export interface AuthResponseBody {
  user: UserView;
}

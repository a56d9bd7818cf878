export const Role = {
  OWNER: 100,
  ADMINISTRATOR: 200,
  MODERATOR: 300,
  MEMBER: 400,
  GUEST: 600,
} as const;
export type RoleCode = (typeof Role)[keyof typeof Role];
export const ROLE_CODES: readonly number[] = Object.values(Role);

export const isRoleCode = (n: number): n is RoleCode => ROLE_CODES.includes(n);
export const isOwner = (role: number) => role === Role.OWNER;
/** Owners are administrators too. */
export const isAdmin = (role: number) => role <= Role.ADMINISTRATOR;
export const isModeratorOrAbove = (role: number) => role <= Role.MODERATOR;
export const isGuest = (role: number) => role === Role.GUEST;

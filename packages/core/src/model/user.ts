export const ROLES = ["superadmin", "admin", "editor", "viewer"] as const;
export type Role = (typeof ROLES)[number];

export interface User {
  id: string;
  username: string;
  role: Role;
}

export interface LoginResponse {
  token: string;
  user: User;
}

export interface SetupStatus {
  needs_setup: boolean;
}

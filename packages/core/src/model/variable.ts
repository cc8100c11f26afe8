export const VARIABLE_TYPES = ["string", "secret"] as const;
export type VariableType = (typeof VARIABLE_TYPES)[number];

export const VARIABLE_KEY_PATTERN = /^[A-Za-z_][A-Za-z0-9_.-]{0,127}$/;

export interface Variable {
  key: string;
  value: string;
  type: VariableType;
  created_at: string;
  updated_at: string;
}

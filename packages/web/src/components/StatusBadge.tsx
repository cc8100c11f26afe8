/** A run or node status as its word and its colour (never colour alone). */
export function StatusBadge({ status }: { status: string | null | undefined }) {
  const value = status ?? "never run";
  return <span className={`status status-${value.replace(/\s+/g, "-")}`}>{value}</span>;
}

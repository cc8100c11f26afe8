import type { User } from "@sluice/client";
import { useState } from "react";
import { Dialog } from "../components/Dialog";
import { ErrorBox } from "../components/ErrorBox";
import { Loading } from "../components/Loading";
import { PageHeader } from "../components/PageHeader";
import { useOp } from "../lib/api";
import { Can, useSession } from "../lib/session";
import { ChangePasswordForm } from "./auth/ChangePasswordDialog";
import { CreateUserForm } from "./users/CreateUserForm";
import { ResetPasswordForm } from "./users/ResetPasswordForm";
import { ROLE_HELP } from "./users/roles";

const ROLE_BADGE: Record<User["role"], string> = {
  superadmin: "status status-failed",
  admin: "status status-cancelled",
  editor: "status status-running",
  viewer: "status status-pending",
};

/** Users (admins): who may sign in and with which role; and, for everyone here, their own password. */
export default function UsersView() {
  const { user, can } = useSession();
  const admin = can("listUsers");
  const users = useOp("listUsers", undefined, { enabled: admin });
  const [creating, setCreating] = useState(false);
  const [resetting, setResetting] = useState<User | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const mayReset = (u: User) => u.role !== "superadmin" || user?.role === "superadmin";

  return (
    <>
      <PageHeader
        title="Users"
        sub={admin ? "Everyone who may sign in, and their role." : "Your account."}
        actions={
          <Can op="createUser">
            <button
              type="button"
              className="primary"
              onClick={() => {
                setNotice(null);
                setCreating(true);
              }}
            >
              Create user
            </button>
          </Can>
        }
      />
      {notice && (
        <div className="ok-box" role="status">
          {notice}
        </div>
      )}
      {!admin ? (
        <p className="panel muted">Only administrators manage users. You can change your own password below.</p>
      ) : (
        <>
          <ErrorBox error={users.error} />
          {users.isPending ? (
            <Loading />
          ) : (
            users.data && (
              <div className="panel" style={{ padding: 0, overflowX: "auto" }}>
                <table>
                  <thead>
                    <tr>
                      <th scope="col">Username</th>
                      <th scope="col">Role</th>
                      <th scope="col">May</th>
                      <th scope="col" style={{ textAlign: "right" }}>
                        Actions
                      </th>
                    </tr>
                  </thead>
                  <tbody>
                    {users.data.map((u) => (
                      <tr key={u.id}>
                        <td>
                          <strong>{u.username}</strong>
                          {u.id === user?.id && <span className="muted"> (you)</span>}
                        </td>
                        <td>
                          <span className={ROLE_BADGE[u.role]}>{u.role}</span>
                        </td>
                        <td className="muted">{ROLE_HELP[u.role]}</td>
                        <td>
                          <div className="actions" style={{ justifyContent: "flex-end" }}>
                            <Can op="adminResetPassword">
                              {u.id !== user?.id && (
                                <button
                                  type="button"
                                  disabled={!mayReset(u)}
                                  title={mayReset(u) ? undefined : "Only a superadmin resets a superadmin's password"}
                                  onClick={() => {
                                    setNotice(null);
                                    setResetting(u);
                                  }}
                                >
                                  Reset password
                                </button>
                              )}
                            </Can>
                          </div>
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            )
          )}
        </>
      )}

      {user && (
        <section className="panel" aria-labelledby="my-password" style={{ maxWidth: 480 }}>
          <h2 id="my-password">Change my password</h2>
          <ChangePasswordForm />
        </section>
      )}

      <Dialog open={creating} title="New user" onClose={() => setCreating(false)}>
        <CreateUserForm
          onDone={(name) => {
            setCreating(false);
            setNotice(`User ${name} created.`);
          }}
        />
      </Dialog>
      <Dialog
        open={resetting !== null}
        title={resetting ? `Reset password of ${resetting.username}` : "Reset password"}
        onClose={() => setResetting(null)}
      >
        {resetting && (
          <ResetPasswordForm
            target={resetting}
            onCancel={() => setResetting(null)}
            onDone={() => {
              const name = resetting.username;
              setResetting(null);
              setNotice(`Password of ${name} reset.`);
            }}
          />
        )}
      </Dialog>
    </>
  );
}

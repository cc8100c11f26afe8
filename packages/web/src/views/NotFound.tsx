import { Link, useLocation } from "react-router";
import { PageHeader } from "../components/PageHeader";

export default function NotFoundView() {
  const { pathname } = useLocation();
  return (
    <>
      <PageHeader title="Not found" />
      <p>
        Nothing lives at <code>{pathname}</code>. <Link to="/">Go to the dashboard</Link>.
      </p>
    </>
  );
}

import { Link } from "react-router";
import { ErrorBox } from "../components/ErrorBox";
import { Loading } from "../components/Loading";
import { PageHeader } from "../components/PageHeader";
import { useOp } from "../lib/api";
import { Counters } from "./dashboard/Counters";
import { PipelineHealth } from "./dashboard/PipelineHealth";
import { RecentRuns } from "./dashboard/RecentRuns";
import { TopFailing } from "./dashboard/TopFailing";
import { TrendChart } from "./dashboard/TrendChart";
import "./dashboard/dashboard.css";

/** `/`: counters, the 7-day trend, recent runs, top failing pipelines; refreshed live by run events. */
export default function DashboardView() {
  const q = useOp("dashboard");
  const header = <PageHeader title="Dashboard" sub="Runs across all pipelines, updated live" />;
  if (q.isPending)
    return (
      <>
        {header}
        <Loading label="Loading dashboard" />
      </>
    );
  if (!q.data)
    return (
      <>
        {header}
        <ErrorBox error={q.error} title="Could not load the dashboard" />
        <button type="button" onClick={() => void q.refetch()}>
          Retry
        </button>
      </>
    );
  const d = q.data;
  return (
    <div className="dashboard">
      {header}
      {q.error && <ErrorBox error={q.error} title="Showing older data; refresh failed" />}
      <Counters dashboard={d} />
      <div className="split dash-split">
        <div className="dash-main">
          <section className="panel" aria-labelledby="trend-title">
            <h2 id="trend-title">Last 7 days</h2>
            <TrendChart trends={d.trends} />
          </section>
          <section className="panel" aria-labelledby="recent-title">
            <h2 id="recent-title">Recent runs</h2>
            <RecentRuns runs={d.recent_runs} />
          </section>
        </div>
        <div className="dash-side">
          <section className="panel" aria-labelledby="top-failing-title">
            <h2 id="top-failing-title">Top failing, 7 days</h2>
            <TopFailing entries={d.top_failing} />
          </section>
          <section className="panel" aria-labelledby="health-title">
            <h2 id="health-title">
              <Link to="/pipelines">Pipelines</Link>
            </h2>
            <PipelineHealth pipelines={d.pipelines} />
          </section>
        </div>
      </div>
    </div>
  );
}

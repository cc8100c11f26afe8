// A pipeline defined in code. Deploy with: npx sluice deploy examples/pipelines-as-code/pipelines
import { code, definePipeline, sinkFile, transform } from "@sluice/client";

const sales = code("sales", {
  code: "return [{ region: 'eu', amount: 10 }, { region: 'us', amount: 7 }, { region: 'eu', amount: 5 }];",
});
const totals = transform("totals", {
  rules: [
    { type: "aggregate", group_by: ["region"], aggregations: [{ column: "amount", function: "sum", as: "total" }] },
  ],
});
const report = sinkFile("report", { path: "sluice-example-report-${run.date}.csv" });
sales.to(totals).to(report);

export default definePipeline({
  name: "example: daily report",
  description: "Totals per region, written as CSV every morning",
  schedule: "0 7 * * *",
  schedule_timezone: "Europe/Berlin",
  nodes: [sales, totals, report],
});

import type { Client } from 'pg';

/** A node of a plan from PostgreSQL's `EXPLAIN (FORMAT JSON)`; the actual figures only with ANALYZE. */
export interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Actual Rows'?: number;
  'Actual Loops'?: number;
  'Rows Removed by Join Filter'?: number;
  Plans?: PlanNode[];
}

/** The plan's nodes, the root first, then each child's, depth first. */
export const planNodes = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(planNodes)];

/** How a plan reads `table`: the node type and index of each node that reads it (writes left out). */
export const readsOf = (plan: PlanNode[], table: string): [string, string | undefined][] =>
  plan
    .filter((node) => node['Relation Name'] === table && node['Node Type'] !== 'ModifyTable')
    .map((node) => [node['Node Type'], node['Index Name']]);

let probes = 0;

/**
 * The plans of `text` run as the apps run their statements, prepared, with `values` (SQL literals: EXPLAIN takes
 * no bind parameters), as PostgreSQL plans it for those values and generically (it may use either), in the
 * client's open transaction; the prepared statement is gone afterwards.
 */
export async function preparedPlans(client: Client, text: string, values: string[]): Promise<PlanNode[][]> {
  // A name of its own: a failed probe's transaction cannot deallocate it, and the next probe must not collide.
  const name = `plan_probe_${++probes}`;
  await client.query(`prepare ${name} as ${text}`);
  try {
    const plans: PlanNode[][] = [];
    for (const mode of ['force_custom_plan', 'force_generic_plan']) {
      await client.query(`set local plan_cache_mode = ${mode}`);
      const explained = await client.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(
        `explain (format json) execute ${name}${values.length ? `(${values.join(', ')})` : ''}`,
      );
      plans.push(planNodes(explained.rows[0]['QUERY PLAN'][0].Plan));
    }
    return plans;
  } finally {
    await client.query(`deallocate ${name}`).catch(() => undefined);
  }
}

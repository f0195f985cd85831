// Row 6: static context — tokens of every tool definition the model is sent on every turn.
import { loadBuilt, type Row } from './harness';

interface ToolDef {
  name: string;
  description: string;
  inputSchema: unknown;
}
interface DefsModule {
  TOOL_DEFINITIONS: readonly ToolDef[];
}
interface TokensModule {
  countTokens(text: string): { tokens: number };
}

const GOAL = '≤ 1,500 tokens';

/**
 * Counts what a chat host sends per tool — name, description and input schema as compact JSON,
 * the shape of a function-calling tool list — for all tools together.
 */
export function rowStatic(): Row {
  const defs = loadBuilt<DefsModule>('core/tools/toolDefinitions', ['TOOL_DEFINITIONS']);
  const tok = loadBuilt<TokensModule>('core/output/tokens', ['countTokens']);
  const list = defs.TOOL_DEFINITIONS.map((d) => ({ name: d.name, description: d.description, input_schema: d.inputSchema }));
  const total = tok.countTokens(JSON.stringify(list)).tokens;
  const per = list
    .map((d) => ({ name: d.name, tokens: tok.countTokens(JSON.stringify(d)).tokens }))
    .sort((a, b) => b.tokens - a.tokens);
  return {
    id: '6',
    what: `static context: ${list.length} tool definitions (name, description, input schema as JSON)`,
    ours: `${total.toLocaleString('en-US')} tokens`,
    reference: '—',
    ratio: '—',
    goal: GOAL,
    met: total <= 1500,
    note: `largest: ${per.slice(0, 4).map((p) => `${p.name} ${p.tokens}`).join(', ')} (o200k_base)`,
  };
}

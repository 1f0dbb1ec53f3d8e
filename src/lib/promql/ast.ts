// The typed AST of MetricsQL (a superset of PromQL). Every node is a plain readonly object
// tagged by `type`, so a `switch (node.type)` narrows it. The parser never produces
// parenthesis nodes: grouping is structural, and the printer adds parentheses where
// precedence needs them, so parse(print(ast)) deep-equals ast.
//
// WITH templates are expanded by the parser; they never appear in the AST.

/** MatchOp is a label matcher operator, spelled as in PromQL. */
export type MatchOp = '=' | '!=' | '=~' | '!~';

/** LabelMatcher selects series by one label; regexps are fully anchored. */
export interface LabelMatcher {
  readonly name: string;
  readonly op: MatchOp;
  readonly value: string;
}

/**
 * DurationExpr is a duration: a literal, or (Prometheus 3 duration expressions) arithmetic
 * over literals, step(), range(), min_of() and max_of(). Values are in SECONDS (floats), as
 * in Prometheus, where a bare number in a duration position means seconds.
 */
export type DurationExpr = DurationLiteral | DurationUnary | DurationBinary | DurationCall;

/**
 * DurationLiteral: `unit: 's'` holds seconds (`5m` → 300, `1800` → 1800, `-5m` → -300);
 * `unit: 'i'` holds a count of query steps (MetricsQL `5i`).
 */
export interface DurationLiteral {
  readonly type: 'DurationLiteral';
  readonly value: number;
  readonly unit: 's' | 'i';
}

export interface DurationUnary {
  readonly type: 'DurationUnary';
  readonly op: '-' | '+';
  readonly expr: DurationExpr;
}

export type DurationBinaryOp = '+' | '-' | '*' | '/' | '%' | '^';

export interface DurationBinary {
  readonly type: 'DurationBinary';
  readonly op: DurationBinaryOp;
  readonly lhs: DurationExpr;
  readonly rhs: DurationExpr;
}

/** DurationCall: step() and range() take no args; min_of/max_of take two. */
export interface DurationCall {
  readonly type: 'DurationCall';
  readonly func: 'step' | 'range' | 'min_of' | 'max_of';
  readonly args: readonly DurationExpr[];
}

/** AtModifier: `@ <seconds>` (float Unix seconds) or `@ start()` / `@ end()`. */
export type AtModifier =
  | { readonly type: 'AtTime'; readonly seconds: number }
  | { readonly type: 'AtStart' }
  | { readonly type: 'AtEnd' };

export type Expr =
  | NumberLiteral
  | StringLiteral
  | VectorSelector
  | MatrixSelector
  | SubqueryExpr
  | UnaryExpr
  | BinaryExpr
  | AggregateExpr
  | FunctionCall;

/** NumberLiteral holds a float64; NaN and ±Inf are valid values. */
export interface NumberLiteral {
  readonly type: 'NumberLiteral';
  readonly value: number;
}

export interface StringLiteral {
  readonly type: 'StringLiteral';
  readonly value: string;
}

/**
 * VectorSelector: `name{matchers} offset d @ t`. `name` is the metric name written outside the
 * braces (or as a bare quoted string inside them), '' when absent. `matcherSets` holds the
 * matchers written inside the braces: one AND-ed set, or several OR-ed sets for MetricsQL
 * `{a="b" or c="d"}`; `[[]]` when there are no braces. The name applies to every set.
 */
export interface VectorSelector {
  readonly type: 'VectorSelector';
  readonly name: string;
  readonly matcherSets: readonly (readonly LabelMatcher[])[];
  readonly offset: DurationExpr | null;
  readonly at: AtModifier | null;
  /**
   * extended: Prometheus 3's experimental range modifiers. `anchored` (range selectors) adds the
   * sample at or before the window start; `smoothed` interpolates values at the window edges
   * (and at the evaluation time for instant selectors). null when not written.
   */
  readonly extended: 'anchored' | 'smoothed' | null;
}

/** MatrixSelector: `selector[range]`; offset, @ and anchored/smoothed live on the inner selector. */
export interface MatrixSelector {
  readonly type: 'MatrixSelector';
  readonly selector: VectorSelector;
  readonly range: DurationExpr;
}

/** SubqueryExpr: `expr[range:step] offset d @ t`; `step` null means the default step. */
export interface SubqueryExpr {
  readonly type: 'SubqueryExpr';
  readonly expr: Expr;
  readonly range: DurationExpr;
  readonly step: DurationExpr | null;
  readonly offset: DurationExpr | null;
  readonly at: AtModifier | null;
}

export interface UnaryExpr {
  readonly type: 'UnaryExpr';
  readonly op: '-' | '+';
  readonly expr: Expr;
}

export type ArithmeticOp = '+' | '-' | '*' | '/' | '%' | '^' | 'atan2';
export type ComparisonOp = '==' | '!=' | '>' | '<' | '>=' | '<=';
export type SetOp = 'and' | 'or' | 'unless';
/** MetricsQLOp: `a default b`, `a if b`, `a ifnot b`. */
export type MetricsQLOp = 'default' | 'if' | 'ifnot';
export type BinaryOp = ArithmeticOp | ComparisonOp | SetOp | MetricsQLOp;

export type MatchCardinality = 'one-to-one' | 'many-to-one' | 'one-to-many' | 'many-to-many';

/**
 * VectorMatching describes `on(...)`/`ignoring(...)` and `group_left(...)`/`group_right(...)`.
 * `include` lists the labels copied from the "one" side (group_x arguments).
 */
export interface VectorMatching {
  readonly card: MatchCardinality;
  readonly on: boolean;
  readonly labels: readonly string[];
  readonly include: readonly string[];
}

export interface BinaryExpr {
  readonly type: 'BinaryExpr';
  readonly op: BinaryOp;
  readonly lhs: Expr;
  readonly rhs: Expr;
  /** returnBool: the `bool` modifier of a comparison. */
  readonly returnBool: boolean;
  /** matching: null when neither on/ignoring nor group_x was written. */
  readonly matching: VectorMatching | null;
  /**
   * fill: Prometheus 3 `fill(v)`/`fill_left(v)`/`fill_right(v)` — the value a missing left or
   * right operand takes (sides as after group_right swaps them); null when not written.
   */
  readonly fill: FillValues | null;
}

export interface FillValues {
  readonly left: number | null;
  readonly right: number | null;
}

export interface Grouping {
  readonly without: boolean;
  readonly labels: readonly string[];
}

/**
 * AggregateExpr: `op by (labels) (args)`. `args` ends with the aggregated expression; extra
 * parameters precede it (`topk(3, x)` → args [3, x]). `limit` is MetricsQL `limit N`.
 */
export interface AggregateExpr {
  readonly type: 'AggregateExpr';
  readonly op: string;
  readonly args: readonly Expr[];
  readonly grouping: Grouping | null;
  readonly limit: number | null;
}

/** FunctionCall: `func(args)`; keepMetricNames is MetricsQL `keep_metric_names`. */
export interface FunctionCall {
  readonly type: 'FunctionCall';
  readonly func: string;
  readonly args: readonly Expr[];
  readonly keepMetricNames: boolean;
}

/** ValueType is the PromQL type an expression evaluates to. */
export type ValueType = 'scalar' | 'vector' | 'matrix' | 'string';

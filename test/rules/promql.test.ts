/** The PromQL reader behind the metric-contract checks finds every metric and label. */
import { analyzePromql } from './promql';

describe('analyzePromql', () => {
  it('finds metrics behind aggregations, set operators, offsets and functions', () => {
    const usage = analyzePromql(
      'sum by (target, category) ((a_total unless a_total offset 1h) and on(target) group by (target) (b offset 1h) or increase(c_total[1h]))',
    );
    expect(usage.selectors.map((selector) => selector.name)).toEqual(['a_total', 'a_total', 'b', 'c_total']);
    expect(usage.groupingLabels).toEqual(['target', 'category', 'target', 'target']);
  });

  it('reads matcher labels, including strings that hold braces, quotes and commas', () => {
    const usage = analyzePromql('x{tier!="total", a=~"q\\"},z"} / on(target, system_id) group_left(system_name) y{b=\'c\'}');
    expect(usage.selectors).toEqual([
      { name: 'x', matcherLabels: ['tier', 'a'] },
      { name: 'y', matcherLabels: ['b'] },
    ]);
    expect(usage.groupingLabels).toEqual(['target', 'system_id', 'system_name']);
  });

  it('takes the name of a {__name__="..."} selector and skips numbers, durations and comments', () => {
    const usage = analyzePromql('{__name__="foo", job="a"} * 1e12 / 0x1f + predict_linear(z[6h], 7 * 86400) # not_a_metric\n > bool 2');
    expect(usage.selectors).toEqual([
      { name: 'foo', matcherLabels: ['job'] },
      { name: 'z', matcherLabels: [] },
    ]);
  });

  it('does not take functions, aggregations or keywords for metrics', () => {
    const usage = analyzePromql('time() - count without (le) (histogram_quantile(0.9, rate(h_bucket[5m]))) > bool on() vector(1) unless absent(up)');
    expect(usage.selectors.map((selector) => selector.name)).toEqual(['h_bucket', 'up']);
    expect(usage.groupingLabels).toEqual(['le']);
  });
});

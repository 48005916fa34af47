/**
 * Ends a jest run with one plain line, "N passed, N failed[, N skipped]", the
 * closing line CI reads in any language (jest's own summary is not in that form).
 */
class PlainSummaryReporter {
  onRunComplete(_contexts, results) {
    const skipped = results.numPendingTests + results.numTodoTests;
    const line = `${results.numPassedTests} passed, ${results.numFailedTests} failed${skipped ? `, ${skipped} skipped` : ''}`;
    process.stdout.write(`${line}\n`);
  }
}

module.exports = PlainSummaryReporter;

//===- gestell/Expr.h - Metric expressions (diff gate, count rules) -------===//
//
// One small grammar shared by `gestell diff --fail-on` and the count rules of
// the rule packs (`when = "..."`); docs/expressions.md is its reference.
//
//   expr    := or
//   or      := and ('or' and)*
//   and     := not ('and' not)*
//   not     := 'not' not | compare
//   compare := sum [('<' | '<=' | '>' | '>=' | '==' | '!=') sum]
//   sum     := product (('+' | '-') product)*
//   product := unary (('*' | '/') unary)*
//   unary   := '-' unary | primary
//   primary := NUMBER | metric | '(' expr ')'
//   metric  := [side '.'] [stage '.'] measure ['.' scope]
//   side    := 'base' | 'head'            (none: head)
//   stage   := 'ptx' | 'sass'             (none: SASS when the kernel has it,
//                                          else PTX)
//   measure := FAMILY | 'instructions' | 'other'
//            | 'op' '(' STRING ')' | 'family' '(' STRING ')'
//            | RESOURCE                   (no stage, no scope)
//   scope   := 'loop' | 'total'           (none: total)
//
// FAMILY is a family id of the table given to the parser (ids with a '-' are
// written family("id")). op("LDSM") counts instructions whose full opcode is
// the string or starts with it followed by '.'; a string with a glob
// character (* ? [ {) is an llvm::GlobPattern on the full opcode. Its stage
// follows the spelling when no stage is written: an opcode with a lowercase
// letter is PTX, an all-uppercase one SASS. RESOURCE is one of registers,
// stack, local, shared_static, shared_dynamic.
//
// Comparisons do not chain (a < b < c is an error); `and`/`or`/`not` take
// conditions and arithmetic takes numbers, checked when parsing. Values are
// doubles (counts are exact up to 2^53). A metric a kernel cannot provide (no
// SASS, no baseline) makes the value unknown rather than failing: unknown
// propagates through arithmetic and comparisons, `false and unknown` is
// false, `true or unknown` is true; a gate holds only when its value is true.
// Division by zero is unknown too.
//
// Parse errors are InputErrors at SourceName:line:col (line 1 unless the text
// has newlines), with "did you mean" for misspelled names.
//
//===----------------------------------------------------------------------===//
#ifndef GESTELL_EXPR_H
#define GESTELL_EXPR_H

#include "gestell/Families.h"
#include "gestell/Metric.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

namespace llvm {
class GlobPattern;
class raw_ostream;
} // namespace llvm

namespace gestell {

/// The result of evaluating an expression.
struct ExprResult {
  enum class Truth : uint8_t { False, True, Unknown };
  /// Conditions: True/False/Unknown. Numbers: Unknown iff Number is none.
  Truth T = Truth::Unknown;
  std::optional<double> Number; ///< arithmetic expressions only
  std::string WhyUnknown;       ///< the first reason a value was unknown
  /// Every metric the expression read, in text order, once each: its
  /// canonical spelling and what the provider said.
  llvm::SmallVector<std::pair<std::string, MetricValue>, 4> Used;

  bool holds() const { return T == Truth::True; }
};

/// A parsed expression. Immutable; copies share the parse.
class Expr {
public:
  /// Parses Text. Families resolves family names (and gives "did you mean"
  /// suggestions); the returned expression keeps family indices into it, so
  /// evaluate it with metrics counted against the same table.
  static llvm::Expected<Expr> parse(llvm::StringRef Text,
                                    const FamilyTable &Families,
                                    llvm::StringRef SourceName = "<expr>");
  /// parse(), then an error at the start when the expression is a number
  /// rather than a condition (what a gate or a `when` needs).
  static llvm::Expected<Expr>
  parseCondition(llvm::StringRef Text, const FamilyTable &Families,
                 llvm::StringRef SourceName = "<expr>");

  /// True when the expression is a condition (comparison or logic), false
  /// when it is a number.
  bool isCondition() const;
  /// Every metric in text order (repeats included).
  llvm::ArrayRef<Metric> metrics() const;
  /// Does any metric read the baseline?
  bool usesBase() const;
  /// The expression printed back canonically: single spaces around binary
  /// operators, parentheses only where needed, metrics as Metric::str().
  /// Parsing it gives the same expression.
  std::string str() const;
  /// The text it was parsed from.
  llvm::StringRef text() const;

  ExprResult evaluate(const MetricProvider &P) const;

  struct Impl;

private:
  explicit Expr(std::shared_ptr<const Impl> I) : I(std::move(I)) {}
  std::shared_ptr<const Impl> I;
};

/// Formats an expression error like a compiler: the "file:line:col: error:
/// message" line, then the expression line and a caret under the column.
/// Errors that are not InputErrors are printed as "error: message".
void printExprError(llvm::raw_ostream &OS, llvm::Error E, llvm::StringRef Text);

} // namespace gestell

#endif

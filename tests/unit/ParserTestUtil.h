//===- ParserTestUtil.h - Assertions on parser errors ---------------------===//
#ifndef GESTELL_TESTS_PARSERTESTUTIL_H
#define GESTELL_TESTS_PARSERTESTUTIL_H

#include "gestell/Error.h"

#include "llvm/Support/Error.h"

#include <gtest/gtest.h>

#include <string>

namespace gestell::test {

/// What an InputError said: the path, line and message, or Kind = "other"
/// when the error was not an InputError (a test failure in itself).
struct ErrorInfo {
  std::string Kind, Path, Message, Text;
  unsigned Line = 0, Column = 0;
};

inline ErrorInfo inspect(llvm::Error E) {
  ErrorInfo Out;
  llvm::handleAllErrors(
      std::move(E),
      [&](const InputError &IE) {
        Out.Kind = "input";
        Out.Path = IE.Path;
        Out.Line = IE.Line;
        Out.Column = IE.Column;
        Out.Message = IE.Message;
        llvm::raw_string_ostream OS(Out.Text);
        IE.log(OS);
      },
      [&](const llvm::ErrorInfoBase &EI) {
        Out.Kind = "other";
        Out.Text = EI.message();
      });
  return Out;
}

/// The error of a failed parse; fails the test when the parse succeeded.
template <typename T> ErrorInfo expectInputError(llvm::Expected<T> R) {
  if (R) {
    ADD_FAILURE() << "expected an InputError, the parse succeeded";
    return {};
  }
  ErrorInfo EI = inspect(R.takeError());
  EXPECT_EQ(EI.Kind, "input") << EI.Text;
  return EI;
}

} // namespace gestell::test

#endif

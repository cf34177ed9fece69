//===- AlgebraMemo.h - Answers of the layout algebra, kept per process ----===//
//
// The layout algebra's questions (what a conversion costs, whether two
// layouts are the same) depend only on the two layouts and the shape, and a
// cache of hundreds of kernels asks a few distinct ones: the 72 kernels of
// the sweep cache hold 72 conversions with 12 distinct (source,
// destination, shape, element type) keys. Answers are kept by the canonical
// texts of both layouts and the shape, errors as their message, behind one
// lock (taken once per question, never per instruction), at most MaxEntries
// of them.
//
//===----------------------------------------------------------------------===//
#ifndef GESTELL_LIB_ALGEBRAMEMO_H
#define GESTELL_LIB_ALGEBRAMEMO_H

#include "gestell/Layout.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Error.h"

#include <mutex>
#include <optional>
#include <string>

namespace gestell {

template <typename T> class AlgebraMemo {
public:
  static constexpr size_t MaxEntries = 1 << 16;

  /// Compute(), or the answer it gave before for the same key.
  llvm::Expected<T> get(char Question, const Layout &A, const Layout &B,
                        llvm::ArrayRef<int64_t> Shape,
                        llvm::function_ref<llvm::Expected<T>()> Compute) {
    std::string Key = key(Question, A, B, Shape);
    {
      std::lock_guard<std::mutex> G(Lock);
      auto It = Answers.find(Key);
      if (It != Answers.end())
        return replay(It->second);
    }
    Entry E;
    llvm::Expected<T> R = Compute();
    if (R)
      E.Value = *R;
    else
      E.Error = llvm::toString(R.takeError());
    {
      std::lock_guard<std::mutex> G(Lock);
      if (Answers.size() >= MaxEntries)
        Answers.clear();
      Answers.try_emplace(Key, E);
    }
    return replay(E);
  }

private:
  struct Entry {
    std::optional<T> Value;
    std::string Error;
  };
  static llvm::Expected<T> replay(const Entry &E) {
    if (E.Value)
      return *E.Value;
    return llvm::createStringError(llvm::inconvertibleErrorCode(), E.Error);
  }
  static std::string key(char Question, const Layout &A, const Layout &B,
                         llvm::ArrayRef<int64_t> Shape) {
    std::string K(1, Question);
    K += A.canonicalText();
    K += '\n';
    K += B.canonicalText();
    for (int64_t D : Shape) {
      K += '\n';
      K += std::to_string(D);
    }
    return K;
  }

  std::mutex Lock;
  llvm::StringMap<Entry> Answers;
};

} // namespace gestell

#endif

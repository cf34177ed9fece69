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
// Distinct questions share layouts (a source converted to two destinations,
// a register layout both converted and stored to tensor memory): the linear
// layout of each (layout, shape) the questions read is kept the same way
// (linearLayoutOf). On the team's 94 real-world kernels the questions ask
// for 206 linear layouts, 85 of them distinct.
//
//===----------------------------------------------------------------------===//
#ifndef GESTELL_LIB_ALGEBRAMEMO_H
#define GESTELL_LIB_ALGEBRAMEMO_H

#include "gestell/Layout.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <mutex>
#include <optional>
#include <string>

namespace gestell {

template <typename T> class AlgebraMemo {
public:
  /// At most MaxEntries answers are kept; past them, the memo starts over.
  explicit AlgebraMemo(size_t MaxEntries = 1 << 16) : MaxEntries(MaxEntries) {}

  /// Compute(), or the answer it gave before for the same key.
  llvm::Expected<T> get(char Question, const Layout &A, const Layout &B,
                        llvm::ArrayRef<int64_t> Shape,
                        llvm::function_ref<llvm::Expected<T>()> Compute) {
    return get(key(Question, A, &B, Shape), Compute);
  }
  /// The same for a question about one layout.
  llvm::Expected<T> get(char Question, const Layout &A,
                        llvm::ArrayRef<int64_t> Shape,
                        llvm::function_ref<llvm::Expected<T>()> Compute) {
    return get(key(Question, A, nullptr, Shape), Compute);
  }

private:
  llvm::Expected<T> get(const std::string &Key,
                        llvm::function_ref<llvm::Expected<T>()> Compute) {
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

  struct Entry {
    std::optional<T> Value;
    std::string Error;
  };
  static llvm::Expected<T> replay(const Entry &E) {
    if (E.Value)
      return *E.Value;
    return llvm::createStringError(llvm::inconvertibleErrorCode(), E.Error);
  }
  static std::string key(char Question, const Layout &A, const Layout *B,
                         llvm::ArrayRef<int64_t> Shape) {
    std::string K(1, Question);
    K += A.canonicalText();
    if (B) {
      K += '\n';
      K += B->canonicalText();
    }
    for (int64_t D : Shape) {
      K += '\n';
      K += std::to_string(D);
    }
    return K;
  }

  const size_t MaxEntries;
  std::mutex Lock;
  llvm::StringMap<Entry> Answers;
};

/// toLinearLayout(L, Shape), computed once per process for each canonical
/// layout and shape (shared, not copied): what the algebra's questions read.
using SharedLinearLayout = std::shared_ptr<const LinearLayout>;
llvm::Expected<SharedLinearLayout>
linearLayoutOf(const Layout &L, llvm::ArrayRef<int64_t> Shape);

} // namespace gestell

#endif

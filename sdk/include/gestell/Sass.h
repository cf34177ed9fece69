//===- gestell/Sass.h - SASS view (nvdisasm and cuobjdump formats) --------===//
//
// Machine code as text. Two renderings exist and are told apart by content,
// never by file name: nvdisasm (`nvdisasm -c -gi`, with `//## File` line
// info and `.L_x_N` labels) and cuobjdump (`cuobjdump -sass`, the format of
// TRITON_KERNEL_DUMP, with encodings and absolute branch targets). Both give
// the same instruction sequence for the same cubin.
//
//===----------------------------------------------------------------------===//
#ifndef GESTELL_SASS_H
#define GESTELL_SASS_H

#include "gestell/ControlFlow.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"

#include <memory>
#include <string>
#include <vector>

namespace gestell {

enum class SassFormat { Nvdisasm, Cuobjdump };

/// One frame of nvdisasm line info; inlined frames chain through InlinedAt.
struct SassLineFrame {
  llvm::StringRef File;
  uint32_t Line = 0;
  uint32_t InlinedAt = NoIndex; ///< index into SassModule::Frames
};

struct SassInstruction {
  uint64_t Address = 0;
  llvm::StringRef Predicate; ///< "P0", "UP1", "PT" for "@!PT"..., else empty
  bool PredicateNegated = false;
  llvm::StringRef Opcode;    ///< with modifiers: "WARPGROUP.DEPBAR.LE"
  llvm::StringRef Operands;  ///< raw operand text without ';'
  uint32_t Line = 0;         ///< 1-based line in the SASS file
  uint32_t Column = 0;
  uint64_t BranchTarget = UINT64_MAX; ///< address, when a branch
  uint32_t Frame = NoIndex;  ///< innermost line-info frame (nvdisasm -gi)

  llvm::StringRef baseOpcode() const { return Opcode.split('.').first; }
};

struct SassFunction {
  std::string Name;
  uint32_t Line = 0;
  std::vector<SassInstruction> Instructions;
  ControlFlow CF;
};

struct SassModule {
  std::string Path;
  SassFormat Format = SassFormat::Nvdisasm;
  llvm::StringRef Target; ///< "sm_100a"
  std::vector<SassFunction> Functions;
  std::vector<SassLineFrame> Frames;
  std::unique_ptr<llvm::MemoryBuffer> Buffer;
};

/// Detects the format from the text itself.
std::optional<SassFormat> detectSassFormat(llvm::StringRef Text);

llvm::Expected<std::unique_ptr<SassModule>> parseSass(llvm::StringRef Path);
llvm::Expected<std::unique_ptr<SassModule>>
parseSass(std::unique_ptr<llvm::MemoryBuffer> Buffer, llvm::StringRef Path);

} // namespace gestell

#endif

//===- Input.cpp - Reading artifact files safely --------------------------===//
#include "gestell/Input.h"
#include "gestell/Error.h"
#include "readers/RegularFile.h"
#include "readers/trace/TraceStore.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/Support/FileSystem.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>
#include <unistd.h>

using namespace llvm;

namespace gestell {

Expected<std::unique_ptr<MemoryBuffer>> openArtifact(StringRef Path,
                                                     Content Kind) {
  // A stage of a TritonParse trace has a label for a path (gestell/Trace.h).
  if (auto Stage = trace::openTraceStage(Path, Kind))
    return std::move(*Stage);
  sys::fs::file_status St;
  Expected<int> FD = openRegularFile(Path, St);
  if (!FD)
    return FD.takeError();
  // Closed without LLVM's signal masking around close().
  scope_exit Close([FD = *FD] { ::close(FD); });
  if (St.getSize() > MaxArtifactBytes)
    return inputError(Path, "file is " + Twine(St.getSize()) +
                                " bytes, larger than any compiler artifact "
                                "this tool reads (limit " +
                                Twine(MaxArtifactBytes) + ")");
  // Read into memory, never mapped: a file truncated while it is read
  // would make a mapping fault (SIGBUS), and with several threads reading,
  // every unmap stops the others to flush their TLBs (with -j2, system time
  // was half of a check's wall time on the sweep's copies). LLVM reads
  // rather than maps a volatile file when the buffer ends in a NUL.
  auto BufOrErr = MemoryBuffer::getOpenFile(*FD, Path, St.getSize(),
                                            /*RequiresNullTerminator=*/true,
                                            /*IsVolatile=*/true);
  if (!BufOrErr)
    return inputError(Path, "cannot read: " + BufOrErr.getError().message());
  std::unique_ptr<MemoryBuffer> Buf = std::move(*BufOrErr);
  if (Kind == Content::Text) {
    StringRef Data = Buf->getBuffer();
    StringRef Head = Data.take_front(64 * 1024);
    size_t Nul = Head.find('\0');
    if (Nul != StringRef::npos) {
      LineCol LC = lineColOf(Data, Nul);
      return inputError(Path, LC.Line, LC.Column,
                        "binary data (NUL byte) where text was expected");
    }
  }
  return Buf;
}

namespace {
/// Reads Size bytes of FD at Offset into Buf; false on an error or a file
/// that ends first (it shrank).
bool readFully(int FD, char *Buf, size_t Size, uint64_t Offset) {
  while (Size) {
    ssize_t N = ::pread(FD, Buf, Size, off_t(Offset));
    if (N < 0 && errno == EINTR)
      continue;
    if (N <= 0)
      return false;
    Buf += N;
    Size -= size_t(N);
    Offset += uint64_t(N);
  }
  return true;
}
} // namespace

bool sameArtifactBytes(StringRef A, StringRef B) {
  sys::fs::file_status StA, StB;
  Expected<int> FA = openRegularFile(A, StA);
  if (!FA) {
    consumeError(FA.takeError());
    return false;
  }
  scope_exit CloseA([FD = *FA] { ::close(FD); });
  Expected<int> FB = openRegularFile(B, StB);
  if (!FB) {
    consumeError(FB.takeError());
    return false;
  }
  scope_exit CloseB([FD = *FB] { ::close(FD); });
  uint64_t Size = StA.getSize();
  if (Size != StB.getSize() || Size > MaxArtifactBytes)
    return false;
  // One file under two names (the same folder as both states, a hard
  // link): its bytes are its bytes.
  if (StA.getUniqueID() == StB.getUniqueID())
    return true;
  // Chunk by chunk: no whole copy of either in memory, and a difference
  // early in the files ends the read. The two chunk buffers are the
  // thread's, made once (a diff compares every file of every pair).
  constexpr size_t Chunk = 64 * 1024;
  thread_local std::unique_ptr<char[]> BufA, BufB;
  if (!BufA) {
    BufA = std::make_unique_for_overwrite<char[]>(Chunk);
    BufB = std::make_unique_for_overwrite<char[]>(Chunk);
  }
  for (uint64_t At = 0; At < Size; At += Chunk) {
    size_t N = size_t(std::min<uint64_t>(Chunk, Size - At));
    if (!readFully(*FA, BufA.get(), N, At) ||
        !readFully(*FB, BufB.get(), N, At) ||
        std::memcmp(BufA.get(), BufB.get(), N) != 0)
      return false;
  }
  return true;
}

LineCol lineColOf(StringRef Buffer, size_t Offset) {
  if (Offset > Buffer.size())
    Offset = Buffer.size();
  StringRef Before = Buffer.take_front(Offset);
  LineCol LC;
  LC.Line = 1 + Before.count('\n');
  size_t LastNl = Before.rfind('\n');
  LC.Column = 1 + (LastNl == StringRef::npos ? Offset : Offset - LastNl - 1);
  return LC;
}

std::string realPath(StringRef Path) {
  SmallString<256> Real;
  if (sys::fs::real_path(Path, Real))
    return "";
  return std::string(Real);
}

bool pathIsWithin(StringRef Path, StringRef Folder) {
  Folder = Folder.rtrim('/');
  if (!Path.starts_with(Folder))
    return false;
  return Path.size() == Folder.size() || Path[Folder.size()] == '/' ||
         Folder.empty();
}

} // namespace gestell

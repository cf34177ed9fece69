//===- TraceReader.cpp - TritonParse traces, one line at a time -----------===//
//
// Gzip is inflated with zlib's streaming API (inflate), linked statically
// from Debian's libz.a so the binary needs no libz.so (sdk/CMakeLists.txt).
// LLVM Support's compression API does not fit: llvm::compression::zlib
// decompresses a whole buffer into an output whose size must be known
// beforehand (the uncompressed size an ELF section header records), so a
// gigabyte trace would sit in memory whole, twice; and libgestell links
// LLVM Support without it anyway (lib/llvm/NoCompression.cpp).
//
//===----------------------------------------------------------------------===//
#include "readers/JsonInput.h"
#include "readers/RegularFile.h"
#include "readers/trace/TraceStore.h"
#include "gestell/Error.h"
#include "gestell/Trace.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"

#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

using namespace llvm;

namespace gestell {

bool isTraceFileName(StringRef Name) {
  Name = sys::path::filename(Name);
  for (StringRef Suffix : {".ndjson", ".ndjson.gz"})
    if (Name.size() > Suffix.size() && Name.ends_with(Suffix))
      return true;
  return false;
}

namespace {
constexpr size_t ChunkBytes = 1 << 20;
} // namespace

class TraceLineReader::Impl {
public:
  std::string Name;
  int FD = -1;            ///< -1: reading Memory
  StringRef Memory;       ///< the whole input, when not a file
  uint64_t MemoryPos = 0; ///< next byte of Memory to take
  bool Gzip = false;
  bool ZReady = false;
  z_stream Z{};
  std::vector<unsigned char> In; ///< compressed input not yet inflated
  bool InputEnded = false;
  bool StreamEnded = false; ///< inflate reached the end of the last member
  bool Failed = false;
  std::string FailMessage;

  /// Uncompressed bytes not yet returned: Buf[Pos, end); Buf[0] is at
  /// stream offset Base.
  std::string Buf;
  size_t Pos = 0;
  uint64_t Base = 0;
  /// Where the search for "\n" resumes in Buf (bytes before it have none).
  size_t ScanFrom = 0;
  bool DataEnded = false;

  unsigned LineNo = 0;   ///< of the line last returned
  unsigned FailLine = 0; ///< where the input could not be read further
  uint64_t LineOff = 0, LineLen = 0;
  StringRef Line;

  ~Impl() {
    if (ZReady)
      inflateEnd(&Z);
    if (FD >= 0)
      ::close(FD);
  }

  void fail(const Twine &Msg) {
    if (!Failed)
      FailMessage = Msg.str();
    Failed = true;
  }

  /// Up to Max raw bytes of input into Out; 0 at the end (or on failure).
  size_t readRaw(unsigned char *Out, size_t Max) {
    if (FD < 0) {
      size_t N = std::min<uint64_t>(Max, Memory.size() - MemoryPos);
      memcpy(Out, Memory.data() + MemoryPos, N);
      MemoryPos += N;
      return N;
    }
    for (;;) {
      ssize_t N = ::read(FD, Out, Max);
      if (N >= 0)
        return static_cast<size_t>(N);
      if (errno == EINTR)
        continue;
      fail("cannot read: " + Twine(strerror(errno)));
      return 0;
    }
  }

  bool startInflate() {
    Z = z_stream{};
    // 15 + 16: a gzip wrapper (not zlib's, not raw deflate), 32 KiB window.
    if (inflateInit2(&Z, 15 + 16) != Z_OK) {
      fail("cannot start gzip decompression");
      return false;
    }
    ZReady = true;
    return true;
  }

  /// Detects gzip from the first bytes and sets up inflate.
  void start() {
    In.resize(ChunkBytes);
    size_t N = readRaw(In.data(), In.size());
    In.resize(N);
    Gzip = N >= 2 && In[0] == 0x1f && In[1] == 0x8b;
    if (!Gzip) {
      Buf.assign(reinterpret_cast<const char *>(In.data()), In.size());
      In.clear();
      if (N == 0)
        DataEnded = true;
      return;
    }
    if (startInflate()) {
      Z.next_in = In.data();
      Z.avail_in = static_cast<uInt>(In.size());
    }
  }

  /// Appends more uncompressed data to Buf; false when there is none.
  bool fill() {
    if (Failed || DataEnded)
      return false;
    if (!Gzip) {
      size_t Old = Buf.size();
      Buf.resize(Old + ChunkBytes);
      size_t N =
          readRaw(reinterpret_cast<unsigned char *>(&Buf[Old]), ChunkBytes);
      Buf.resize(Old + N);
      if (N == 0)
        DataEnded = true;
      return N > 0;
    }
    if (!ZReady)
      return false;
    size_t Old = Buf.size();
    Buf.resize(Old + ChunkBytes);
    Z.next_out = reinterpret_cast<Bytef *>(&Buf[Old]);
    Z.avail_out = ChunkBytes;
    while (Z.avail_out > 0) {
      if (StreamEnded) {
        // Another gzip member may follow (concatenated .gz files).
        if (Z.avail_in == 0 && !refill())
          break;
        if (Z.avail_in < 2 && !InputEnded) {
          // Keep the leftover byte and read the rest of the magic.
          std::vector<unsigned char> Keep(Z.next_in, Z.next_in + Z.avail_in);
          if (!refill(Keep))
            break;
        }
        if (Z.avail_in < 2 || Z.next_in[0] != 0x1f || Z.next_in[1] != 0x8b) {
          fail("data after the end of the gzip stream is not gzip");
          break;
        }
        if (inflateReset(&Z) != Z_OK) {
          fail("cannot restart gzip decompression");
          break;
        }
        StreamEnded = false;
      }
      if (Z.avail_in == 0 && !refill()) {
        if (!Failed)
          fail("truncated gzip data (the file ends inside the stream)");
        break;
      }
      int RC = inflate(&Z, Z_NO_FLUSH);
      if (RC == Z_STREAM_END) {
        StreamEnded = true;
        continue;
      }
      if (RC == Z_BUF_ERROR && Z.avail_in == 0)
        continue; // needs more input: refilled above
      if (RC != Z_OK) {
        fail("corrupt gzip data" + (Z.msg ? ": " + Twine(Z.msg) : Twine()));
        break;
      }
    }
    size_t Got = ChunkBytes - Z.avail_out;
    Buf.resize(Old + Got);
    if (Got == 0 && (StreamEnded || Failed))
      DataEnded = true;
    return Got > 0;
  }

  /// More compressed input (after Keep); false at its end.
  bool refill(const std::vector<unsigned char> &Keep = {}) {
    if (InputEnded || Failed)
      return false;
    In.resize(Keep.size() + ChunkBytes);
    std::copy(Keep.begin(), Keep.end(), In.begin());
    size_t N = readRaw(In.data() + Keep.size(), ChunkBytes);
    In.resize(Keep.size() + N);
    if (N == 0)
      InputEnded = true;
    Z.next_in = In.data();
    Z.avail_in = static_cast<uInt>(In.size());
    return N > 0 || !Keep.empty();
  }

  /// Drops the bytes already returned, so Buf holds the current line only.
  void compact() {
    if (Pos == 0)
      return;
    Buf.erase(0, Pos);
    Base += Pos;
    ScanFrom -= std::min(ScanFrom, Pos);
    Pos = 0;
  }

  Status next() {
    // After a failure, the complete lines decompressed before it are still
    // returned; the one that was cut is where it failed.
    bool Skipping = false; // inside a line too long to keep
    uint64_t SkipStart = 0;
    for (;;) {
      size_t NL = Buf.find('\n', std::max(ScanFrom, Pos));
      if (NL != std::string::npos) {
        ++LineNo;
        if (Skipping) {
          LineOff = SkipStart;
          LineLen = Base + NL + 1 - SkipStart;
          Pos = ScanFrom = NL + 1;
          Line = {};
          return Status::TooLong;
        }
        LineOff = Base + Pos;
        LineLen = NL + 1 - Pos;
        Line = StringRef(Buf).slice(Pos, NL);
        if (Line.ends_with("\r"))
          Line = Line.drop_back();
        Pos = ScanFrom = NL + 1;
        return Status::Line;
      }
      ScanFrom = Buf.size();
      if (!Skipping && Buf.size() - Pos > MaxTraceEventBytes) {
        Skipping = true;
        SkipStart = Base + Pos;
      }
      if (Skipping) {
        // Keep nothing of a line that is too long.
        Pos = Buf.size();
        compact();
      } else {
        compact();
      }
      if (!fill()) {
        if (Failed) {
          FailLine = LineNo + 1;
          return Status::Failed;
        }
        // The last line may lack its "\n".
        if (Pos < Buf.size() || Skipping) {
          ++LineNo;
          LineOff = Skipping ? SkipStart : Base + Pos;
          LineLen = Base + Buf.size() - LineOff;
          Line = Skipping ? StringRef() : StringRef(Buf).substr(Pos);
          if (Line.ends_with("\r"))
            Line = Line.drop_back();
          Pos = ScanFrom = Buf.size();
          return Skipping ? Status::TooLong : Status::Line;
        }
        return Status::End;
      }
    }
  }

  /// Back to the first byte of the input.
  bool rewind() {
    if (FD >= 0) {
      if (::lseek(FD, 0, SEEK_SET) != 0) {
        fail("cannot seek: " + Twine(strerror(errno)));
        return false;
      }
    } else {
      MemoryPos = 0;
    }
    if (ZReady) {
      inflateEnd(&Z);
      ZReady = false;
    }
    In.clear();
    InputEnded = StreamEnded = DataEnded = false;
    Buf.clear();
    Pos = ScanFrom = 0;
    Base = 0;
    start();
    return !Failed;
  }

  Error seekTo(uint64_t Offset, unsigned NewLine) {
    if (Failed) {
      FailLine = NewLine;
      return takeError();
    }
    if (Offset >= Base && Offset <= Base + Buf.size()) {
      Pos = ScanFrom = Offset - Base;
    } else if (!Gzip) {
      // A plain file or buffer: jump straight there.
      if (FD >= 0) {
        if (::lseek(FD, static_cast<off_t>(Offset), SEEK_SET) < 0)
          return inputError(Name, NewLine, 0,
                            "cannot seek: " + Twine(strerror(errno)));
      } else {
        MemoryPos = std::min<uint64_t>(Offset, Memory.size());
      }
      Buf.clear();
      Pos = ScanFrom = 0;
      Base = Offset;
      DataEnded = false;
    } else {
      if (Offset < Base && !rewind()) {
        FailLine = NewLine;
        return takeError();
      }
      // Inflate forward to Offset, keeping nothing before it.
      while (Base + Buf.size() < Offset) {
        Pos = Buf.size();
        compact();
        if (!fill()) {
          if (Failed) {
            FailLine = NewLine;
            return takeError();
          }
          return inputError(Name, NewLine, 0,
                            "the trace ends before this event (was it "
                            "changed while gestell read it?)");
        }
      }
      Pos = ScanFrom = Offset - Base;
    }
    LineNo = NewLine ? NewLine - 1 : 0;
    return Error::success();
  }

  Error takeError() {
    if (!Failed)
      return Error::success();
    return inputError(Name, FailLine ? FailLine : LineNo + 1, 0, FailMessage);
  }
};

TraceLineReader::TraceLineReader(std::unique_ptr<Impl> I) : P(std::move(I)) {}
TraceLineReader::~TraceLineReader() = default;

Expected<std::unique_ptr<TraceLineReader>>
TraceLineReader::open(StringRef Path) {
  sys::fs::file_status St;
  Expected<int> FD = openRegularFile(Path, St);
  if (!FD)
    return FD.takeError();
  auto I = std::make_unique<Impl>();
  I->Name = Path.str();
  I->FD = *FD;
  I->start();
  return std::unique_ptr<TraceLineReader>(new TraceLineReader(std::move(I)));
}

std::unique_ptr<TraceLineReader> TraceLineReader::fromMemory(StringRef Data,
                                                             StringRef Name) {
  auto I = std::make_unique<Impl>();
  I->Name = Name.str();
  I->Memory = Data;
  I->start();
  return std::unique_ptr<TraceLineReader>(new TraceLineReader(std::move(I)));
}

TraceLineReader::Status TraceLineReader::next() { return P->next(); }
StringRef TraceLineReader::line() const { return P->Line; }
unsigned TraceLineReader::lineNumber() const { return P->LineNo; }
uint64_t TraceLineReader::lineOffset() const { return P->LineOff; }
uint64_t TraceLineReader::lineLength() const { return P->LineLen; }
bool TraceLineReader::isGzip() const { return P->Gzip; }
Error TraceLineReader::takeError() { return P->takeError(); }
Error TraceLineReader::seekTo(uint64_t Offset, unsigned Line) {
  return P->seekTo(Offset, Line);
}

namespace {

/// The value of the first `"event_type": "..."` in a line that is not JSON
/// llvm::json reads (Python writes NaN and Infinity); "" when none. Inside a
/// JSON string a quote is escaped, so an unescaped `"event_type"` followed
/// by a colon is a key.
StringRef scanEventType(StringRef Line) {
  size_t At = Line.find("\"event_type\"");
  if (At == StringRef::npos)
    return {};
  StringRef Rest = Line.drop_front(At + strlen("\"event_type\"")).ltrim(" \t");
  if (!Rest.consume_front(":"))
    return {};
  Rest = Rest.ltrim(" \t");
  if (!Rest.consume_front("\""))
    return {};
  return Rest.take_until([](char C) { return C == '"' || C == '\\'; });
}

/// A file_content key that can name a stage: a plain file name.
bool plainFileName(StringRef Name) {
  if (Name.empty() || Name == "." || Name == "..")
    return false;
  return none_of(Name, [](char C) {
    return C == '/' || C == '\\' || static_cast<unsigned char>(C) < 0x20 ||
           C == 0x7f;
  });
}

} // namespace

namespace trace {

StringRef repeatCandidateHash(StringRef Line) {
  if (scanEventType(Line) != "compilation")
    return {};
  size_t Meta = Line.find("\"metadata\"");
  if (Meta == StringRef::npos)
    return {};
  size_t At = Line.find("\"hash\"", Meta);
  if (At == StringRef::npos)
    return {};
  StringRef Rest = Line.drop_front(At + strlen("\"hash\"")).ltrim(" \t");
  if (!Rest.consume_front(":"))
    return {};
  Rest = Rest.ltrim(" \t");
  if (!Rest.consume_front("\""))
    return {};
  StringRef Hash = Rest.take_front(64);
  if (Hash.size() != 64 || !Rest.drop_front(64).starts_with("\"") ||
      !all_of(Hash,
              [](char C) { return isDigit(C) || (C >= 'a' && C <= 'f'); }))
    return {};
  return Hash;
}

} // namespace trace

Expected<TraceEvent> parseTraceEvent(StringRef Line, StringRef Trace,
                                     unsigned LineNo,
                                     function_ref<bool(StringRef)> KeepText) {
  auto Err = [&](const Twine &Msg) {
    return inputError(Trace, LineNo, 0, Msg);
  };
  TraceEvent E;
  Expected<json::Value> V = parseJsonInput(Line, Trace, "TritonParse event");
  if (!V) {
    // Located in the one-line text: line 1, the column in the event's line.
    unsigned Column = 0;
    std::string Msg;
    handleAllErrors(
        V.takeError(),
        [&](const InputError &I) {
          Column = I.Line <= 1 ? I.Column : 0;
          Msg = I.Message;
        },
        [&](const ErrorInfoBase &B) { Msg = B.message(); });
    StringRef Type = scanEventType(Line);
    if (!Type.empty() && Type != "compilation") {
      E.Type = Type.str();
      E.Unparsed = true;
      return E;
    }
    return inputError(Trace, LineNo, Column, Msg);
  }
  const json::Object *O = V->getAsObject();
  if (!O)
    return Err("a TritonParse event is a JSON object");
  std::optional<StringRef> Type = O->getString("event_type");
  if (!Type)
    return Err("not a TritonParse event: no \"event_type\" string");
  E.Type = Type->str();
  if (E.Type != "compilation")
    return E;

  const json::Object *Payload = O->getObject("payload");
  if (!Payload)
    return Err("compilation event without a \"payload\" object");
  const json::Object *Content = Payload->getObject("file_content");
  if (!Content)
    return Err("compilation event without a \"payload.file_content\" object");
  for (const auto &[Key, Value] : *Content) {
    std::optional<StringRef> Text = Value.getAsString();
    if (!Text) {
      if (Value.kind() == json::Value::Null)
        continue; // a stage TritonParse could not read
      return Err("payload.file_content[\"" + StringRef(Key) +
                 "\"] is not a string");
    }
    if (!plainFileName(Key))
      continue; // never a stage: gestell names stages by file name
    TraceEvent::File F;
    F.Name = StringRef(Key).str();
    if (!KeepText || KeepText(F.Name))
      F.Text = Text->str();
    E.Files.push_back(std::move(F));
  }
  // json::Object is a hash map: sort for a deterministic order.
  llvm::sort(E.Files, [](const TraceEvent::File &A, const TraceEvent::File &B) {
    return A.Name < B.Name;
  });

  if (const json::Value *M = Payload->get("metadata")) {
    if (const json::Object *MO = M->getAsObject())
      E.Meta = kernelMetadataFromJson(*MO);
    else if (M->kind() != json::Value::Null)
      return Err("payload.metadata is not a JSON object");
  }
  if (E.Meta) {
    E.Name = E.Meta->Name;
    E.Hash = E.Meta->Hash;
  }
  if (E.Name.empty())
    for (const TraceEvent::File &F : E.Files)
      if (size_t Dot = StringRef(F.Name).find('.');
          Dot && Dot != StringRef::npos) {
        E.Name = F.Name.substr(0, Dot);
        break;
      }

  if (const json::Value *FP = Payload->get("file_path")) {
    const json::Object *Paths = FP->getAsObject();
    if (!Paths && FP->kind() != json::Value::Null)
      return Err("payload.file_path is not a JSON object");
    std::vector<std::pair<std::string, std::string>> Cubins;
    if (Paths)
      for (const auto &[Key, Value] : *Paths)
        if (StringRef(Key).ends_with(".cubin"))
          if (std::optional<StringRef> S = Value.getAsString())
            Cubins.push_back({StringRef(Key).str(), S->str()});
    llvm::sort(Cubins);
    for (const auto &[Key, Path] : Cubins)
      if (E.CubinPath.empty() || Key == E.Name + ".cubin")
        E.CubinPath = Path;
  }
  return E;
}

} // namespace gestell

//===- SiteTable.cpp - the site table blob of one module ------------------===//
//
// Field-by-field writer for the blob of trace-format.h.  The offsetof
// assertions tie the writer to the C structs: if the header changes, this
// file stops compiling instead of writing a wrong layout.
//
//===----------------------------------------------------------------------===//

#include "SiteTable.h"

#include "trace-format.h"

#include <cassert>
#include <cstddef>

using namespace llvm;

namespace commhint {

static_assert(sizeof(cht_tu_header) == 64, "tu header layout");
static_assert(offsetof(cht_tu_header, tu_key) == 8, "tu header layout");
static_assert(offsetof(cht_tu_header, nsites) == 16, "tu header layout");
static_assert(offsetof(cht_tu_header, module_name) == 52, "tu header layout");
static_assert(offsetof(cht_tu_header, costs_off) == 60, "tu header layout");
static_assert(sizeof(cht_site) == 32, "site layout");
static_assert(offsetof(cht_site, col) == 12, "site layout");
static_assert(offsetof(cht_site, kind) == 14, "site layout");
static_assert(offsetof(cht_site, op) == 15, "site layout");
static_assert(offsetof(cht_site, loop) == 16, "site layout");
static_assert(offsetof(cht_site, naccess) == 28, "site layout");
static_assert(sizeof(cht_loop) == 24, "loop layout");
static_assert(offsetof(cht_loop, depth) == 14, "loop layout");
static_assert(offsetof(cht_loop, parent) == 16, "loop layout");
static_assert(sizeof(cht_access) == 8, "access layout");

namespace {
// Appends integers in a chosen byte order.
class Writer {
public:
  Writer(std::vector<uint8_t> &Out, bool LE) : Out(Out), LE(LE) {}
  void u8(uint8_t V) { Out.push_back(V); }
  void u16(uint16_t V) { put(V, 2); }
  void u32(uint32_t V) { put(V, 4); }
  void u64(uint64_t V) { put(V, 8); }
  void pad8() {
    while (Out.size() % 8)
      Out.push_back(0);
  }
  size_t size() const { return Out.size(); }

private:
  void put(uint64_t V, unsigned N) {
    for (unsigned I = 0; I < N; ++I) {
      unsigned Shift = 8 * (LE ? I : N - 1 - I);
      Out.push_back(static_cast<uint8_t>(V >> Shift));
    }
  }
  std::vector<uint8_t> &Out;
  bool LE;
};
} // namespace

SiteTable::SiteTable() { Strings.push_back('\0'); }

uint32_t SiteTable::addString(StringRef S) {
  if (S.empty())
    return 0;
  auto It = StringIndex.find(S);
  if (It != StringIndex.end())
    return It->second;
  uint32_t Off = Strings.size();
  Strings.append(S.data(), S.size());
  Strings.push_back('\0');
  StringIndex[S] = Off;
  return Off;
}

uint32_t SiteTable::addSite(StringRef File, StringRef Func, uint32_t Line,
                            uint16_t Col, uint8_t Kind, uint8_t Op,
                            uint32_t Loop, uint32_t Flags, uint32_t Cost,
                            const std::vector<AccessEntry> &Acc) {
  SiteEntry E;
  E.File = addString(File);
  E.Func = addString(Func);
  E.Line = Line;
  E.Col = Col;
  E.Kind = Kind;
  E.Op = Op;
  E.Loop = Loop;
  E.Flags = Flags;
  E.Cost = Cost;
  E.AccessFirst = Accesses.size();
  E.NAccess = Acc.size();
  Accesses.insert(Accesses.end(), Acc.begin(), Acc.end());
  Sites.push_back(E);
  return Sites.size() - 1;
}

void SiteTable::setSiteDeps(uint32_t Local, std::vector<DepEntry> Deps) {
  if (SiteDeps.size() <= Local)
    SiteDeps.resize(Local + 1);
  SiteDeps[Local] = std::move(Deps);
}

void SiteTable::addSymbolRow(StringRef Func, int32_t Arg,
                             std::vector<DepEntry> Deps) {
  SymRows.push_back({addString(Func), Arg, std::move(Deps)});
}

uint32_t SiteTable::addLoop(StringRef File, StringRef Func, uint32_t Line,
                            uint16_t Col, uint16_t Depth, uint32_t Parent) {
  LoopEntry E;
  E.File = addString(File);
  E.Func = addString(Func);
  E.Line = Line;
  E.Col = Col;
  E.Depth = Depth;
  E.Parent = Parent;
  Loops.push_back(E);
  return Loops.size() - 1;
}

uint64_t SiteTable::fnv1a64(const uint8_t *Data, size_t Size) {
  uint64_t H = CHT_FNV64_OFFSET;
  for (size_t I = 0; I < Size; ++I) {
    H ^= Data[I];
    H *= CHT_FNV64_PRIME;
  }
  return H;
}

std::vector<uint8_t> SiteTable::serialize(StringRef ModuleName, bool LE) {
  uint32_t ModuleStr = addString(ModuleName);
  SiteDeps.resize(Sites.size());
  const uint32_t NRows = Sites.size() + SymRows.size();
  uint32_t NEntries = 0;
  for (const auto &D : SiteDeps)
    NEntries += D.size();
  for (const SymRow &R : SymRows)
    NEntries += R.Deps.size();
  const uint32_t SitesOff = sizeof(cht_tu_header);
  const uint32_t LoopsOff = SitesOff + Sites.size() * sizeof(cht_site);
  const uint32_t AccessOff = LoopsOff + Loops.size() * sizeof(cht_loop);
  const uint32_t DepsOff = AccessOff + Accesses.size() * sizeof(cht_access);
  const uint32_t RowsOff = DepsOff + sizeof(cht_tu_deps);
  const uint32_t EntriesOff = RowsOff + NRows * sizeof(cht_dep_row);
  const uint32_t CostsOff = EntriesOff + NEntries * sizeof(cht_dep);
  const uint32_t StringsOff = CostsOff + Sites.size() * sizeof(uint32_t);
  const uint32_t Total = (StringsOff + Strings.size() + 7) & ~7u;

  std::vector<uint8_t> Blob;
  Blob.reserve(Total);
  Writer W(Blob, LE);
  W.u32(CHT_TU_MAGIC);
  W.u16(CHT_TU_VERSION);
  W.u16(sizeof(cht_tu_header));
  W.u64(0); // tu_key, filled in below
  W.u32(Sites.size());
  W.u32(Loops.size());
  W.u32(Accesses.size());
  W.u32(Total);
  W.u32(SitesOff);
  W.u32(LoopsOff);
  W.u32(AccessOff);
  W.u32(StringsOff);
  W.u32(Strings.size());
  W.u32(ModuleStr);
  W.u32(DepsOff);
  W.u32(CostsOff);
  assert(W.size() == SitesOff);
  for (const SiteEntry &S : Sites) {
    W.u32(S.File);
    W.u32(S.Func);
    W.u32(S.Line);
    W.u16(S.Col);
    W.u8(S.Kind);
    W.u8(S.Op);
    W.u32(S.Loop);
    W.u32(S.Flags);
    W.u32(S.AccessFirst);
    W.u32(S.NAccess);
  }
  assert(W.size() == LoopsOff);
  for (const LoopEntry &L : Loops) {
    W.u32(L.File);
    W.u32(L.Func);
    W.u32(L.Line);
    W.u16(L.Col);
    W.u16(L.Depth);
    W.u32(L.Parent);
    W.u32(0);
  }
  assert(W.size() == AccessOff);
  for (const AccessEntry &A : Accesses) {
    W.u32(A.Size);
    W.u32(A.Flags);
  }
  assert(W.size() == DepsOff);
  W.u32(NRows);
  W.u32(NEntries);
  W.u32(RowsOff);
  W.u32(EntriesOff);
  uint32_t First = 0;
  for (const auto &D : SiteDeps) {
    W.u32(First);
    W.u32(D.size());
    W.u32(0);
    W.u32(static_cast<uint32_t>(CHT_DEP_ARG_SITE));
    First += D.size();
  }
  for (const SymRow &R : SymRows) {
    W.u32(First);
    W.u32(R.Deps.size());
    W.u32(R.Func);
    W.u32(static_cast<uint32_t>(R.Arg));
    First += R.Deps.size();
  }
  assert(W.size() == EntriesOff);
  auto Entry = [&](const DepEntry &E) {
    W.u32(E.Target);
    W.u16(E.Kind);
    W.u16(static_cast<uint16_t>(E.Arg));
  };
  for (const auto &D : SiteDeps)
    for (const DepEntry &E : D)
      Entry(E);
  for (const SymRow &R : SymRows)
    for (const DepEntry &E : R.Deps)
      Entry(E);
  assert(W.size() == CostsOff);
  for (const SiteEntry &S : Sites)
    W.u32(S.Cost);
  assert(W.size() == StringsOff);
  Blob.insert(Blob.end(), Strings.begin(), Strings.end());
  W.pad8();
  assert(W.size() == Total);

  uint64_t Key = fnv1a64(Blob.data(), Blob.size());
  std::vector<uint8_t> KeyBytes;
  Writer KW(KeyBytes, LE);
  KW.u64(Key);
  std::copy(KeyBytes.begin(), KeyBytes.end(),
            Blob.begin() + offsetof(cht_tu_header, tu_key));
  return Blob;
}

} // namespace commhint

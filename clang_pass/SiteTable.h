//===- SiteTable.h - the site table blob of one module ---------*- C++ -*-===//
//
// Serialises a translation unit's sites, loops and access lists as the blob
// described in tracelib/trace-format.h (struct cht_tu_header + cht_site[] +
// cht_loop[] + cht_access[] + strings), in the target's byte order.
//
//===----------------------------------------------------------------------===//

#ifndef COMMHINT_CLANG_PASS_SITETABLE_H
#define COMMHINT_CLANG_PASS_SITETABLE_H

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <string>
#include <vector>

namespace commhint {

class SiteTable {
public:
  struct AccessEntry {
    uint32_t Size;
    uint32_t Flags;
  };

  SiteTable();

  /// Appends a site (local id = number of sites before it) with its access
  /// list; returns the local id.
  uint32_t addSite(llvm::StringRef File, llvm::StringRef Func, uint32_t Line,
                   uint16_t Col, uint8_t Kind, uint8_t Op, uint32_t Loop,
                   uint32_t Flags, uint32_t Cost,
                   const std::vector<AccessEntry> &Accesses);

  /// One dependence entry (struct cht_dep): Target is a local site id or a
  /// string offset (addString) for the symbol kinds.
  struct DepEntry {
    uint32_t Target;
    uint16_t Kind;
    int16_t Arg;
  };

  /// The dependences of site \p Local (see DepAnalysis.h).
  void setSiteDeps(uint32_t Local, std::vector<DepEntry> Deps);

  /// A symbol row: what parameter \p Arg of \p Func (or its return value,
  /// or its calls' conditions: CHT_DEP_ARG_RET / _ENTRY) is made of here.
  void addSymbolRow(llvm::StringRef Func, int32_t Arg,
                    std::vector<DepEntry> Deps);

  /// Offset of \p S in the string area (0 for "").
  uint32_t addString(llvm::StringRef S);

  /// Appends a loop; \p Parent is a local loop id or CHT_NONE.
  uint32_t addLoop(llvm::StringRef File, llvm::StringRef Func, uint32_t Line,
                   uint16_t Col, uint16_t Depth, uint32_t Parent);

  uint32_t numSites() const { return Sites.size(); }
  uint32_t numLoops() const { return Loops.size(); }

  /// The blob, tu_key filled in.
  std::vector<uint8_t> serialize(llvm::StringRef ModuleName, bool LittleEndian);

  /// FNV-1a 64 of \p Data.
  static uint64_t fnv1a64(const uint8_t *Data, size_t Size);

private:
  struct SiteEntry {
    uint32_t File, Func, Line;
    uint16_t Col;
    uint8_t Kind, Op;
    uint32_t Loop, Flags, AccessFirst, NAccess;
    uint32_t Cost; // the cost section (site table version 3)
  };
  struct LoopEntry {
    uint32_t File, Func, Line;
    uint16_t Col, Depth;
    uint32_t Parent;
  };
  struct SymRow {
    uint32_t Func;
    int32_t Arg;
    std::vector<DepEntry> Deps;
  };

  std::vector<SiteEntry> Sites;
  std::vector<std::vector<DepEntry>> SiteDeps; // by local site id
  std::vector<SymRow> SymRows;
  std::vector<LoopEntry> Loops;
  std::vector<AccessEntry> Accesses;
  std::string Strings;
  llvm::StringMap<uint32_t> StringIndex;
};

} // namespace commhint

#endif // COMMHINT_CLANG_PASS_SITETABLE_H

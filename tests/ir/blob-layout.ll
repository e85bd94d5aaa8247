; The site table blob, byte for byte: struct cht_tu_header, one cht_site,
; one cht_loop, one cht_access, the dependence section (struct cht_tu_deps,
; one cht_dep_row, two cht_dep), the cost section (one uint32_t), the
; strings ("" first, deduplicated: "blob.c" is both the site's and the
; loop's file), padding to 8 bytes, and tu_key = FNV-1a 64 of the blob with
; tu_key zeroed (0xdf2223160f5d76f0, computed independently).  No debug info: line and column 0, file =
; source_filename.  Read from stdin so that the module identifier is
; "<stdin>".
; RUN: %opt -commhint-inline=false -passes=commhint-instrument -S < %s -o %t.ll
; RUN: %FileCheck %s < %t.ll

; header: magic, version 3, header_size 64, tu_key, nsites 1, nloops 1,
; naccess 1, total_size 200, sites_off 64, loops_off 96 ("`"), access_off
; 120 ("x"), strings_off 180, strings_size 18, module_name 10, deps_off 128,
; costs_off 176.
; site: file 1, func 8, line 0, col 0, kind COMP, op NONE (a phi is stored),
; loop 0, flags 0x80 (CHT_SITEF_FRAME_PTR), access_first 0, naccess 1.
; loop: file 1, func 8, line 0, col 0, depth 1, parent CHT_NONE, reserved.
; access: 4 bytes, written.
; deps: nrows 1, nentries 2, rows_off 144, entries_off 160; the site's row
; (first 0, n 2, func 0, arg SITE = -3); its entries, both symbols of "w"
; (string 8) taken as values: the conditions w is called under (ENTRY, -2:
; the stored phi depends on which edge entered the loop) and parameter 0
; (%n, the loop bound deciding the edge).
; costs: 3, the store, the add and the compare of the loop's one block (the
; phi and the branch are free).
; CHECK: @__commhint_site_table = private constant [200 x i8] c"CHTU\03\00@\00p\A5w9S\0B\E3\22\01\00\00\00\01\00\00\00\01\00\00\00\C8\00\00\00@\00\00\00`\00\00\00x\00\00\00\B4\00\00\00\12\00\00\00\0A\00\00\00\80\00\00\00\B0\00\00\00\01\00\00\00\08\00\00\00\00\00\00\00\00\00\01\00\00\00\00\00\80\00\00\00\00\00\00\00\01\00\00\00\01\00\00\00\08\00\00\00\00\00\00\00\00\00\01\00\FF\FF\FF\FF\00\00\00\00\04\00\00\00\02\00\00\00\01\00\00\00\02\00\00\00\90\00\00\00\A0\00\00\00\00\00\00\00\02\00\00\00\00\00\00\00\FD\FF\FF\FF\08\00\00\00\03\00\FE\FF\08\00\00\00\03\00\00\00\03\00\00\00\00blob.c\00w\00<stdin>\00\00\00", align 8
; CHECK: call void @__commhint_register_tu(i32 7, ptr @__commhint_site_table, i32 200, ptr @__commhint_site_base, ptr @__commhint_loop_base)

source_filename = "blob.c"

@x = global i32 0

define void @w(i32 %n) {
entry:
  br label %loop

loop:
  %i = phi i32 [ 0, %entry ], [ %i.next, %loop ]
  store i32 %i, ptr @x
  %i.next = add i32 %i, 1
  %c = icmp slt i32 %i.next, %n
  br i1 %c, label %loop, label %exit

exit:
  ret void
}

// The runtime's second-level trap handler for GFX9.0 (gfx900 .. gfx90a).
//
// KFD's first-level handler (CWSR, cwsr_trap_handler_gfx9.asm) enters it
// with (LLVM AMDGPUUsage "Trap Handler ABI"; ROCr's second-level ABI):
//   ttmp0        PC[31:0] of the s_trap, or of the excepting instruction
//   ttmp1        PC[47:32] in [15:0], trap id in [23:16] (0: an exception),
//                host trap in [24]
//   ttmp11       the wave's IB_STS RCNT/FIRST_REPLAY saved in [31:26]
//   ttmp12       the wave's STATUS
//   ttmp15:14    TMA: the GPU's doorbell-to-queue map, 1024 amd_queue_t
//                pointers indexed by doorbell id (s_sendmsg MSG_GET_DOORBELL)
// and may use ttmp2..ttmp5 freely. It returns with s_rfe_b64 to ttmp1:0.
//
// What it does:
//   * a memory violation without XNACK error (an aperture violation; a page
//     fault is the VM fault interrupt's to report): queue error 0x20000000
//   * an illegal instruction: queue error 0x40000000
//   * s_trap 2 (llvm.trap, __builtin_trap, HIP assert): queue error 0x80000000
//   * any other s_trap (3: llvm.debugtrap, no debugger here): resume after it
//   * any other exception: resume at the instruction
// A queue error is the queue_inactive_signal's value (the first error wins),
// its event raised (the event id to the signal's mailbox, then
// s_sendmsg MSG_INTERRUPT with data 0: KFD scans the signaled slots), and
// the wave halts (STATUS.HALT), so the queue's dispatch never completes.
// The runtime's queue monitor maps the code to the HSA status.

.set TRAPSTS_MEM_VIOL            , 1 << 8
.set TRAPSTS_ILLEGAL_INST        , 1 << 11
.set TRAPSTS_XNACK_ERROR         , 1 << 28
.set TTMP1_TRAP_ID_BFE           , 16 | (8 << 16)  // offset 16, width 8
.set STATUS_HALT                 , 1 << 13
.set TRAP_ID_ABORT               , 2
.set ERROR_APERTURE_VIOLATION    , 1 << 29
.set ERROR_ILLEGAL_INSTRUCTION   , 1 << 30
.set ERROR_TRAP                  , 1 << 31
.set DOORBELL_ID_MASK            , 0x3ff
.set AMD_QUEUE_INACTIVE_SIGNAL   , 0xc0            // amd_hsa_queue.h
.set AMD_SIGNAL_VALUE            , 0x08            // amd_hsa_signal.h
.set AMD_SIGNAL_EVENT_MAILBOX    , 0x10
.set AMD_SIGNAL_EVENT_ID         , 0x18
.set TTMP11_IB_STS_SHIFT         , 26 - 15         // ttmp11[31:26] -> IB_STS[20:15]
.set IB_STS_RCNT_FIRST_REPLAY    , 0x1f8000

.text
.globl trap_entry
trap_entry:
  s_getreg_b32    ttmp2, hwreg(HW_REG_TRAPSTS)
  s_and_b32       ttmp3, ttmp2, TRAPSTS_MEM_VIOL | TRAPSTS_XNACK_ERROR
  s_cmp_eq_u32    ttmp3, TRAPSTS_MEM_VIOL
  s_cbranch_scc1  .aperture_violation
  s_bitcmp1_b32   ttmp2, 11                        // TRAPSTS.ILLEGAL_INST
  s_cbranch_scc1  .illegal_instruction
  s_bfe_u32       ttmp3, ttmp1, TTMP1_TRAP_ID_BFE
  s_cbranch_scc0  .resume                          // trap id 0: another exception
  s_cmp_eq_u32    ttmp3, TRAP_ID_ABORT
  s_cbranch_scc1  .abort
  s_add_u32       ttmp0, ttmp0, 4                  // step over the s_trap
  s_addc_u32      ttmp1, ttmp1, 0
  s_branch        .resume

.aperture_violation:
  s_mov_b32       ttmp4, ERROR_APERTURE_VIOLATION
  s_branch        .report
.illegal_instruction:
  s_mov_b32       ttmp4, ERROR_ILLEGAL_INSTRUCTION
  s_branch        .report
.abort:
  s_mov_b32       ttmp4, ERROR_TRAP

.report:
  s_mov_b32       ttmp5, 0
  // The queue's doorbell id: the SQ answers in exec_lo, bit 31 clear when done.
  s_mov_b32       ttmp3, exec_lo
  s_mov_b32       exec_lo, 0x80000000
  s_sendmsg       sendmsg(MSG_GET_DOORBELL)
.wait_doorbell:
  s_nop           7
  s_bitcmp1_b32   exec_lo, 31
  s_cbranch_scc1  .wait_doorbell
  s_and_b32       ttmp2, exec_lo, DOORBELL_ID_MASK
  s_mov_b32       exec_lo, ttmp3
  s_lshl_b32      ttmp2, ttmp2, 3
  s_load_dwordx2  ttmp[2:3], ttmp[14:15], ttmp2 glc      // amd_queue_t *
  s_waitcnt       lgkmcnt(0)
  s_cmp_eq_u64    ttmp[2:3], 0
  s_cbranch_scc1  .halt                                 // no queue registered
  s_load_dwordx2  ttmp[2:3], ttmp[2:3], AMD_QUEUE_INACTIVE_SIGNAL glc
  s_waitcnt       lgkmcnt(0)
  s_cmp_eq_u64    ttmp[2:3], 0
  s_cbranch_scc1  .halt
  s_atomic_swap_x2 ttmp[4:5], ttmp[2:3], AMD_SIGNAL_VALUE glc
  s_waitcnt       lgkmcnt(0)
  s_cmp_lg_u64    ttmp[4:5], 0
  s_cbranch_scc1  .halt                                 // an earlier error was reported
  s_load_dwordx2  ttmp[4:5], ttmp[2:3], AMD_SIGNAL_EVENT_MAILBOX glc
  s_waitcnt       lgkmcnt(0)
  s_cmp_eq_u64    ttmp[4:5], 0
  s_cbranch_scc1  .halt                                 // a signal without an event
  s_load_dword    ttmp2, ttmp[2:3], AMD_SIGNAL_EVENT_ID glc
  s_waitcnt       lgkmcnt(0)
  s_store_dword   ttmp2, ttmp[4:5], 0 glc
  s_waitcnt       lgkmcnt(0)
  s_mov_b32       ttmp3, m0
  s_mov_b32       m0, 0
  s_nop           0                                     // m0 write before s_sendmsg
  s_sendmsg       sendmsg(MSG_INTERRUPT)
  s_mov_b32       m0, ttmp3

.halt:
  s_or_b32        ttmp12, ttmp12, STATUS_HALT

.resume:
  s_lshr_b32      ttmp2, ttmp11, TTMP11_IB_STS_SHIFT
  s_and_b32       ttmp2, ttmp2, IB_STS_RCNT_FIRST_REPLAY
  s_setreg_b32    hwreg(HW_REG_IB_STS), ttmp2
  s_and_b64       exec, exec, exec                      // STATUS.EXECZ, VCCZ: not
  s_and_b64       vcc, vcc, vcc                         // writable by s_setreg
  s_setreg_b32    hwreg(HW_REG_STATUS), ttmp12
  s_rfe_b64       ttmp[0:1]

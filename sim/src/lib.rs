//! `sim`: a software AMD GPU below the `kfd` seam.
//!
//! The device answers the KFD/DRM contract the way the hardware and the
//! amdgpu driver do, so that an unmodified runtime drives it through its
//! real KFD code path. This part of the crate is the System DMA engine:
//!
//! - [`sdma`]: the SDMA packets ROCr's SDMA blit emits (formats of the
//!   amdgpu driver's SDMA v4 headers), their decoder, and the engine that
//!   executes a ring of them against device memory.
#![deny(unsafe_code)]

pub mod sdma;

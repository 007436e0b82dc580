// Package journal holds the pure rules of the Fractal journal (SPEC §6): what
// each file of a journal layer is, which days, ISO weeks and months exist, the
// boot set, the sections of rollups, the built-in extractive summarizer and the
// prompt for a configured one, lesson promotion, open loops and which rollups are
// due. It reads and writes nothing and imports only the standard library; the
// engine gives it paths relative to the layer root ("2026-11-30.md",
// "weekly/2026-W48.md") and bodies, and acts on what it returns.
package journal

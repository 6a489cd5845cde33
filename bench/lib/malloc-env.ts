/**
 * The glibc malloc settings every platform process runs with, for the services and engines the
 * benches start: the images set the same (docker/Dockerfile.*, `ENV`), and so does `npm start`
 * (package.json; tools/workspace-checks/test/malloc-env.test.ts keeps all three in step;
 * docs/decisions/0051-malloc-thresholds.md). By default glibc maps a buffer over 128 KiB afresh
 * and gives it back when it is freed, and shrinks its heap whenever 128 KiB are free at its top:
 * every large buffer (a reply of click buckets is megabytes, which the driver copies into a new
 * buffer) was memory touched for the first time, page by page. On these machines that cost 10 ms
 * for 2.2 MB, against 0.2 ms with these settings. Large buffers now come from the heap (up to 32
 * MiB, glibc's maximum), and up to 128 MiB freed at its top is kept for the next one.
 */
export const MALLOC_ENV = { MALLOC_MMAP_THRESHOLD_: '33554432', MALLOC_TRIM_THRESHOLD_: '134217728' } as const;

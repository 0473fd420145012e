#!/usr/bin/env python3
"""Run a ptxfp capture kit on an NVIDIA GPU and write each spelling's results.

    ptxfp capture --all --out kit          # the kernels and inputs (any machine)
    python3 scripts/capture_run.py kit     # on the machine with the GPU
    ptxfp compare kit                      # bit for bit against ptxfp

The kit's manifest.json lists one entry per spelling: a PTX kernel (entry point `capture`,
.u64 parameters: out, one input buffer per operand slot, n, base, then lo, len, stride for
each slot — five slots, or three in kits written before the five-operand conversions) and
where its operands come from (`.npy` files, or counters the kernel evaluates from the thread
index). This runner loads each kernel through the CUDA driver library
(libcuda, through ctypes: nothing to install), launches it over the domain in chunks, and
writes the results as `<stem>.out.npy` in domain order — the layout `ptxfp sweep --ref` and
`ptxfp compare` read. A results file appears only when complete (written beside it, then
renamed), so an interrupted run resumes where it stopped. `device.json` records the GPU, its
compute capability and the driver; `run.json` the spellings that failed to load or run.

`--fake PTXFP` runs the same host side against a stand-in device that evaluates each kernel's
instruction with `PTXFP run` instead of a GPU: the kit's tests use it without a GPU.
"""

import argparse
import ctypes
import datetime
import json
import os
import platform
import re
import struct
import subprocess
import sys
import tempfile

THREADS = 256
CHUNK = 1 << 27
NPY_MAGIC = b"\x93NUMPY"


def npy_header(descr, count):
    """The .npy version 1.0 header of a one-dimensional array, padded to 64 bytes."""
    text = "{'descr': '%s', 'fortran_order': False, 'shape': (%d,), }" % (descr, count)
    pad = 64 - (10 + len(text) + 1) % 64
    text += " " * (pad % 64) + "\n"
    return NPY_MAGIC + b"\x01\x00" + struct.pack("<H", len(text)) + text.encode("latin1")


def npy_data_offset(path):
    """The byte offset of a .npy file's data (versions 1, 2 and 3)."""
    with open(path, "rb") as f:
        head = f.read(12)
    if head[:6] != NPY_MAGIC:
        raise ValueError("%s: not a .npy file" % path)
    if head[6] == 1:
        return 10 + struct.unpack("<H", head[8:10])[0]
    return 12 + struct.unpack("<I", head[8:12])[0]


class CudaError(RuntimeError):
    pass


class CudaDevice:
    """Device 0 through the CUDA driver API (libcuda) with ctypes."""

    def __init__(self):
        names = ["libcuda.so.1", "libcuda.so", "nvcuda.dll"]
        lib = None
        for name in names:
            try:
                lib = ctypes.CDLL(name)
                break
            except OSError:
                continue
        if lib is None:
            raise CudaError("no CUDA driver library (%s): is the NVIDIA driver installed?" % ", ".join(names))
        self.cu = lib
        self._call("cuInit", 0)
        dev = ctypes.c_int()
        self._call("cuDeviceGet", ctypes.byref(dev), 0)
        self.dev = dev.value
        ctx = ctypes.c_void_p()
        self._call("cuDevicePrimaryCtxRetain", ctypes.byref(ctx), self.dev)
        self._call("cuCtxSetCurrent", ctx)
        self.host = None
        self.host_size = 0

    def _call(self, name, *args):
        fn = getattr(self.cu, name)
        status = fn(*args)
        if status != 0:
            text = ctypes.c_char_p()
            self.cu.cuGetErrorString(status, ctypes.byref(text))
            raise CudaError("%s failed: %s (%d)" % (name, (text.value or b"?").decode(), status))

    def describe(self):
        name = ctypes.create_string_buffer(256)
        self._call("cuDeviceGetName", name, 256, self.dev)
        major, minor, version = ctypes.c_int(), ctypes.c_int(), ctypes.c_int()
        self._call("cuDeviceGetAttribute", ctypes.byref(major), 75, self.dev)
        self._call("cuDeviceGetAttribute", ctypes.byref(minor), 76, self.dev)
        self._call("cuDriverGetVersion", ctypes.byref(version))
        info = {
            "gpu": name.value.decode(),
            "compute_capability": "%d.%d" % (major.value, minor.value),
            "cuda_driver_api": "%d.%d" % (version.value // 1000, version.value % 1000 // 10),
        }
        try:
            smi = subprocess.run(
                ["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
                capture_output=True, text=True, timeout=30,
            )
            if smi.returncode == 0:
                info["driver"] = smi.stdout.strip().splitlines()[0]
        except (OSError, subprocess.SubprocessError):
            pass
        return info

    def load(self, ptx):
        """The `capture` function of a PTX module (JIT-compiled by the driver)."""
        module = self.load_module(ptx)
        return (module, self.function(module, b"capture"))

    def load_module(self, ptx):
        """A PTX module JIT-compiled by the driver; a failure carries ptxas's log."""
        module = ctypes.c_void_p()
        log = ctypes.create_string_buffer(8192)
        options = (ctypes.c_int * 2)(5, 6)  # CU_JIT_ERROR_LOG_BUFFER, ..._SIZE_BYTES
        values = (ctypes.c_void_p * 2)(ctypes.cast(log, ctypes.c_void_p), ctypes.c_void_p(len(log)))
        source = ctypes.c_char_p(ptx.encode() + b"\0")
        try:
            self._call("cuModuleLoadDataEx", ctypes.byref(module), source, 2, options, values)
        except CudaError as e:
            raise CudaError("%s: %s" % (e, log.value.decode(errors="replace").strip()))
        return module

    def function(self, module, name):
        """The entry point `name` (bytes) of a loaded module."""
        function = ctypes.c_void_p()
        self._call("cuModuleGetFunction", ctypes.byref(function), module, name)
        return function

    def unload(self, handle):
        self._call("cuModuleUnload", handle[0])

    def alloc(self, nbytes):
        ptr = ctypes.c_uint64()
        self._call("cuMemAlloc_v2", ctypes.byref(ptr), ctypes.c_size_t(max(nbytes, 1)))
        return ptr.value

    def free(self, ptr):
        self._call("cuMemFree_v2", ctypes.c_uint64(ptr))

    def upload(self, ptr, data):
        buf = (ctypes.c_char * len(data)).from_buffer_copy(data)
        self._call("cuMemcpyHtoD_v2", ctypes.c_uint64(ptr), buf, ctypes.c_size_t(len(data)))

    def download(self, ptr, nbytes):
        """`nbytes` from the device, through a pinned host buffer."""
        if nbytes > self.host_size:
            if self.host is not None:
                self._call("cuMemFreeHost", self.host)
            self.host = ctypes.c_void_p()
            self._call("cuMemAllocHost_v2", ctypes.byref(self.host), ctypes.c_size_t(nbytes))
            self.host_size = nbytes
        self._call("cuMemcpyDtoH_v2", self.host, ctypes.c_uint64(ptr), ctypes.c_size_t(nbytes))
        return memoryview((ctypes.c_char * nbytes).from_address(self.host.value)).cast("B")

    def launch(self, handle, threads, params):
        values = [ctypes.c_uint64(p) for p in params]
        pointers = (ctypes.c_void_p * len(values))(*[ctypes.cast(ctypes.byref(v), ctypes.c_void_p) for v in values])
        blocks = (threads + THREADS - 1) // THREADS
        self._call("cuLaunchKernel", handle[1], blocks, 1, 1, THREADS, 1, 1, 0, None, pointers, None)
        self._call("cuCtxSynchronize")


class FakeDevice:
    """A stand-in device for tests: `launch` evaluates the kernel's instruction with
    `ptxfp run` on the operands the kernel would read. `flip` maps a spelling to a global
    input index whose result gets its lowest bit flipped (fault injection)."""

    def __init__(self, ptxfp, arch, flip=None):
        self.ptxfp = ptxfp
        self.arch = arch
        self.flip = flip or {}
        self.memory = {}
        self.next = 1 << 20

    def describe(self):
        return {"gpu": "fake (ptxfp run)", "compute_capability": self.arch}

    def load(self, ptx):
        match = re.search(r"^// ptxfp capture: (\S+)", ptx, re.M)
        if not match:
            raise CudaError("not a ptxfp capture kernel")
        words = re.search(r"^// words: (\d+)-bit sources, (\d+)-bit results", ptx, re.M)
        src, dst = int(words.group(1)) // 8, int(words.group(2)) // 8
        sources = len(re.findall(r"^\s+ld\.param\.u64 %rd2, \[(?:in|lo)\d\];", ptx, re.M))
        counted = "[lo0]" in ptx
        # `ptxfp run` reads each operand's raw file in words of the operand's own type: the
        # width of its register, or the source word's where that is narrower (an 8-bit integer
        # in a 16-bit register).
        registers = {int(j): int(bits) for bits, j in re.findall(r"^\s+\.reg \.[a-z]+?(\d+) %a(\d+);", ptx, re.M)}
        widths = [min(registers[j] // 8, src) for j in range(sources)]
        return (match.group(1), src, dst, sources, counted, widths)

    def unload(self, handle):
        pass

    def alloc(self, nbytes):
        ptr = self.next
        self.next += nbytes + 256
        self.memory[ptr] = bytearray(nbytes)
        return ptr

    def free(self, ptr):
        del self.memory[ptr]

    def upload(self, ptr, data):
        self.memory[ptr][: len(data)] = data

    def download(self, ptr, nbytes):
        return memoryview(bytes(self.memory[ptr][:nbytes]))

    def launch(self, handle, threads, params):
        instr, src, dst, sources, counted, widths = handle
        k = operand_slots(len(params))
        out, ins, n, base, counters = params[0], params[1 : 1 + k], params[1 + k], params[2 + k], params[3 + k :]
        fmt = {1: "<B", 2: "<H", 4: "<I", 8: "<Q"}
        with tempfile.TemporaryDirectory() as tmp:
            args = [self.ptxfp, "run", "--arch", self.arch, instr]
            for j in range(sources):
                if counted:
                    lo, length, stride = counters[3 * j : 3 * j + 3]
                    words = [lo + ((base + i) // stride) % length for i in range(n)]
                    data = b"".join(struct.pack(fmt[widths[j]], w) for w in words)
                else:
                    words = bytes(self.memory[ins[j]][: n * src])
                    data = b"".join(words[i : i + widths[j]] for i in range(0, n * src, src))
                path = os.path.join(tmp, "in%d.bin" % j)
                with open(path, "wb") as f:
                    f.write(data)
                args += ["--in", path]
            result = os.path.join(tmp, "out.bin")
            subprocess.run(args + ["--out", result], check=True, capture_output=True)
            with open(result, "rb") as f:
                data = bytearray(f.read())
        index = self.flip.get(instr)
        if index is not None and base <= index < base + n:
            data[(index - base) * dst] ^= 1
        self.memory[out][: len(data)] = data


def operand_slots(params):
    """Operand slots of a kernel with `params` parameters: out, k inputs, n, base, 3k counters."""
    return (params - 3) // 4


def run_entry(device, kit, entry):
    """Evaluate one entry over its domain and write its results file."""
    out_path = os.path.join(kit, entry["output"])
    count = entry["count"]
    src_bytes = entry["source_bits"] // 8
    dst_bytes = entry["result_bits"] // 8
    with open(os.path.join(kit, entry["ptx"])) as f:
        ptx = f.read()
    slots = operand_slots(len(re.findall(r"^\s*\.param \.u64 ", ptx, re.M)))
    handle = device.load(ptx)
    chunk = min(count, CHUNK)
    out = device.alloc(chunk * dst_bytes)
    inputs = entry["inputs"]
    files, counters = [], []
    if inputs["kind"] == "files":
        files = [os.path.join(kit, name) for name in inputs["files"]]
    else:
        for c in inputs["counters"]:
            counters += [c["lo"], c["len"], c["stride"]]
    counters += [0, 1, 1] * (slots - len(counters) // 3)
    buffers = [device.alloc(chunk * src_bytes) for _ in files]
    partial = out_path + ".part"
    try:
        with open(partial, "wb") as dest:
            dest.write(npy_header(entry["result_dtype"], count))
            offsets = [npy_data_offset(p) for p in files]
            for start in range(0, count, chunk):
                n = min(chunk, count - start)
                for path, offset, buf in zip(files, offsets, buffers):
                    with open(path, "rb") as f:
                        f.seek(offset + start * src_bytes)
                        data = f.read(n * src_bytes)
                    if len(data) != n * src_bytes:
                        raise ValueError("%s: shorter than the manifest says" % path)
                    device.upload(buf, data)
                ins = buffers + [0] * (slots - len(buffers))
                device.launch(handle, n, [out] + ins + [n, start] + counters)
                dest.write(device.download(out, n * dst_bytes))
        os.replace(partial, out_path)
    finally:
        if os.path.exists(partial):
            os.remove(partial)
        for buf in buffers + [out]:
            device.free(buf)
        device.unload(handle)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("kit", help="the directory `ptxfp capture --out` wrote")
    parser.add_argument("--only", action="append", default=[],
                        help="run only spellings containing this text (repeatable)")
    parser.add_argument("--force", action="store_true", help="rerun spellings whose results exist")
    parser.add_argument("--max-count", type=int, metavar="N",
                        help="run only spellings with at most N inputs (a quick first pass)")
    parser.add_argument("--fake", metavar="PTXFP", help="evaluate with this ptxfp binary instead of a GPU (tests)")
    parser.add_argument("--fake-flip", action="append", default=[], metavar="INSTR:INDEX",
                        help="with --fake, flip the lowest result bit of this input (tests)")
    args = parser.parse_args(argv)
    try:
        with open(os.path.join(args.kit, "manifest.json")) as f:
            manifest = json.load(f)
        entries = manifest["entries"]
    except (OSError, ValueError, KeyError) as e:
        print("capture_run: %s is not a capture kit: %s" % (args.kit, e), file=sys.stderr)
        return 2
    try:
        if args.fake:
            flip = {}
            for item in args.fake_flip:
                instr, _, index = item.rpartition(":")
                flip[instr] = int(index)
            device = FakeDevice(args.fake, manifest["arch"], flip)
        else:
            device = CudaDevice()
        info = device.describe()
    except CudaError as e:
        print("capture_run: %s" % e, file=sys.stderr)
        return 2
    info.update({"kit_arch": manifest["arch"], "host": platform.node(),
                 "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")})
    with open(os.path.join(args.kit, "device.json"), "w") as f:
        json.dump(info, f, indent=2)
    print("device: %s" % ", ".join("%s %s" % kv for kv in info.items()), flush=True)
    failures = {}
    for entry in entries:
        if args.only and not any(text in entry["instr"] for text in args.only):
            continue
        if args.max_count is not None and entry["count"] > args.max_count:
            continue
        if os.path.exists(os.path.join(args.kit, entry["output"])) and not args.force:
            continue
        try:
            run_entry(device, args.kit, entry)
            print("%-34s %d results" % (entry["instr"], entry["count"]), flush=True)
        except (CudaError, OSError, ValueError, subprocess.CalledProcessError) as e:
            failures[entry["output"]] = str(e)
            print("%-34s FAILED: %s" % (entry["instr"], e), flush=True)
    with open(os.path.join(args.kit, "run.json"), "w") as f:
        json.dump({"device": info, "failures": failures}, f, indent=2)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

# Miss (prefilter): a file whose only private uses are uncatalogued members on typed receivers is
# dropped by the prefilters before the detector runs; `--no-prefilter` reports both lines (PRV900).
# miles utils/test_utils/det_process_group.py:71-282.  Keep this file free of catalogued names.
import torch.distributed as dist


class Wrapper(dist.ProcessGroup):
    def __init__(self, inner: dist.ProcessGroup) -> None:
        super().__init__(inner.rank(), inner.size())
        self._inner = inner
        self._set_default_backend(dist.ProcessGroup.BackendType.CUSTOM)  # expect: PRV

    def gather(self, out, inp, opts):
        return self._inner._allgather_base(out, inp, opts)  # expect: PRV

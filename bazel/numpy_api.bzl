"""The numpy and ml_dtypes the extension modules and the package support.

The extension modules compile against @pip's numpy headers (2.2.6) but for
the NumPy C API of NUMPY_TARGET_VERSION: an extension built for the 2.0 API
imports with every numpy 2.x from 2.0 on (numpy keeps the ABI within a major
version), so that is the range the wheel declares. The package looks up
ml_dtypes' float8_e3m4, float8_e4m3 and float8_e8m0fnu, new in 0.5.
//test/wheel runs the wheel with the oldest and the newest of each range.
"""

NUMPY_TARGET_VERSION = "NPY_2_0_API_VERSION"

WHEEL_REQUIREMENTS = [
    "numpy>=2.0,<3",
    "ml_dtypes>=0.5,<1",
]

# CPython versions requirements_lock.txt has wheels for (bazelw checks too).
REQUIRES_PYTHON = ">=3.10,<3.14"

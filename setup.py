from configparser import ConfigParser
import importlib.util, os, setuptools, shlex, sys
from setuptools.command.build_ext import build_ext
from setuptools.errors import CompileError

# note: all settings are in settings.ini; edit there, not here
config = ConfigParser(delimiters=['='])
config.read('settings.ini', encoding='utf-8')
cfg = config['DEFAULT']

cfg_keys = 'version description keywords author author_email'.split()
expected = cfg_keys + "lib_name user branch license status min_python audience language".split()
for o in expected: assert o in cfg, "missing expected setting: {}".format(o)
setup_cfg = {o:cfg[o] for o in cfg_keys}

licenses = {
    'apache2': ('Apache Software License 2.0','OSI Approved :: Apache Software License'),
    'mit': ('MIT License', 'OSI Approved :: MIT License'),
}
statuses = [ '1 - Planning', '2 - Pre-Alpha', '3 - Alpha',
    '4 - Beta', '5 - Production/Stable', '6 - Mature', '7 - Inactive' ]
py_versions = '3.10 3.11 3.12 3.13'.split()

requirements = shlex.split(cfg.get('requirements', ''))
if cfg.get('pip_requirements'): requirements += shlex.split(cfg.get('pip_requirements', ''))
min_python = cfg['min_python']
lic = licenses.get(cfg['license'].lower(), (cfg['license'], None))
dev_requirements = shlex.split(cfg.get('dev_requirements', ''))

# The alternatives' kernels compiled ahead of time (numba.pycc), as optional extension modules: without numba or a C
# compiler the build only warns, and the package JIT-compiles the kernels on first use instead.
def aot_extensions():
    folder = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'mlxplain', 'alternatives')
    spec = importlib.util.spec_from_file_location('_mlxplain_kernels_build', os.path.join(folder, 'kernels.py'))
    try:
        kernels = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(kernels)  # by path: the package itself is not importable before it is installed
        compilers = kernels.aot_compilers(folder)
    except Exception as e:  # e.g. numpy missing in the build environment
        print(f'mlxplain: no ahead-of-time kernels ({type(e).__name__}: {e})', file=sys.stderr)
        return []
    exts = []
    for cc in compilers:
        ext = cc.distutils_extension()
        # numba's C helpers, by absolute path: handed over at build time only (the source list must be relative)
        ext.optional, ext.helper_sources, ext.sources = True, ext.sources, []
        exts.append(ext)
    return exts

class BuildExt(build_ext):
    "build_ext that LLVM-compiles a pycc extension's object file first; an optional one that fails only warns."
    def build_extension(self, ext):
        try:
            if getattr(ext, '_cc', None) is not None:
                ext.sources = ext.helper_sources
                ext._prepare_object_files(self)
            super().build_extension(ext)
        except Exception as e:  # no C compiler, a numba error: the package falls back to the JIT kernels
            if not ext.optional: raise
            raise CompileError(f'{ext.name}: {type(e).__name__}: {e}') from e

setuptools.setup(
    name = cfg['lib_name'],
    license = lic[0],
    classifiers = [
        'Development Status :: ' + statuses[int(cfg['status'])],
        'Intended Audience :: ' + cfg['audience'].title(),
        'Natural Language :: ' + cfg['language'].title(),
    ] + ['Programming Language :: Python :: '+o for o in py_versions[py_versions.index(min_python):]] + (['License :: ' + lic[1] ] if lic[1] else []),
    url = cfg['git_url'],
    packages = setuptools.find_packages(include=['mlxplain', 'mlxplain.*']),
    include_package_data = True,
    install_requires = requirements,
    extras_require={ 'dev': dev_requirements },
    dependency_links = cfg.get('dep_links','').split(),
    python_requires  = '>=' + cfg['min_python'],
    long_description = open('README.md', encoding='utf-8').read(),
    long_description_content_type = 'text/markdown',
    zip_safe = False,
    ext_modules = aot_extensions(),
    cmdclass = {'build_ext': BuildExt},
    entry_points = {
        'console_scripts': cfg.get('console_scripts','').split(),
        'nbdev': [f'{cfg.get("lib_path")}={cfg.get("lib_path")}._modidx:d']
    },
    **setup_cfg)

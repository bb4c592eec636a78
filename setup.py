from configparser import ConfigParser
import importlib.util, os, setuptools, shlex, warnings
from setuptools.command.build_py import build_py

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

class build_py_with_kernels(build_py):
    """Also compile the alternatives' kernels ahead of time (numba.pycc) into the package being built, so that a fresh
    install's first search compiles nothing. Without numba or a C compiler it only warns: the package then compiles
    them with numba's JIT on first use (mlxplain.alternatives.kernels)."""
    def run(self):
        super().run()
        folder = os.path.join("mlxplain", "alternatives")  # an editable install: the sources' folder
        if not getattr(self, "editable_mode", False): folder = os.path.join(self.build_lib, folder)
        try:
            # the kernels' module by path: the package itself cannot be imported before it is installed
            spec = importlib.util.spec_from_file_location("mlxplain_kernels_build", os.path.join(folder, "kernels.py"))
            kernels = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(kernels)
            built = kernels.build_aot(folder)
            print(f"mlxplain: ahead-of-time kernels: {', '.join(map(os.path.basename, built)) or 'none'}")
        except Exception as e:  # the install must not fail for want of an optional speed-up
            warnings.warn(f"mlxplain: no ahead-of-time kernels ({type(e).__name__}: {e}); they compile on first use")

class platform_distribution(setuptools.Distribution):
    "A wheel that holds compiled kernels is tagged for its Python and platform, not as pure Python."
    def has_ext_modules(self): return True

setuptools.setup(
    cmdclass = {'build_py': build_py_with_kernels},
    distclass = platform_distribution,
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
    entry_points = {
        'console_scripts': cfg.get('console_scripts','').split(),
        'nbdev': [f'{cfg.get("lib_path")}={cfg.get("lib_path")}._modidx:d']
    },
    **setup_cfg)

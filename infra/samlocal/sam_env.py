"""Print, as JSON, the container environment `sam local invoke` gives each
function of a template, computed by the SAM CLI's own code: declared
variables only, unresolved references as SAM resolves them, the
--env-vars overrides file applied, SAM's own variables added.

usage: python sam_env.py TEMPLATE ENV_VARS_FILE
"""

import json
import sys

from samcli.commands.local.cli_common.invoke_context import InvokeContext
from samcli.commands.local.lib.local_lambda import LocalLambdaRunner
from samcli.lib.providers.sam_function_provider import SamFunctionProvider
from samcli.lib.providers.sam_stack_provider import SamLocalStackProvider


def main(template, env_file):
    stacks, _ = SamLocalStackProvider.get_stacks(template)
    provider = SamFunctionProvider(stacks, ignore_code_extraction_warnings=True)
    runner = LocalLambdaRunner(
        local_runtime=None,
        function_provider=provider,
        cwd=".",
        real_path=".",
        env_vars_values=InvokeContext._get_env_vars_value(env_file),
    )
    out = {fn.name: runner._make_env_vars(fn).resolve() for fn in provider.get_all()}
    json.dump(out, sys.stdout, indent=1, sort_keys=True)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])

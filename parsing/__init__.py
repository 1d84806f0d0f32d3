from parsing.result_log import ErrorCode as ErrorCode
from parsing.result_log import ResultLogConfig as ResultLogConfig
from parsing.result_log import ResultLogConfigError as ResultLogConfigError
from parsing.result_log import ResultLogError as ResultLogError
from parsing.result_log import ResultRecord as ResultRecord
from parsing.result_log import parse_result_log as parse_result_log
from parsing.result_log import parse_result_log_async as parse_result_log_async

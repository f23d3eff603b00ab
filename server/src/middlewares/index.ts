import capability from './capability';
import contractErrors from './contract-errors';
import verifiedRequest from './verified-request';

export default {
  capability,
  'contract-errors': contractErrors,
  'verified-request': verifiedRequest,
};
